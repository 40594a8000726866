#pragma once
// The one matrix type of the engine: float32, row-major like a PyTorch tensor,
// so that a flat index walks the same elements in the same order as torch does.
#include <Eigen/Core>  // all the engine needs: no decompositions

namespace attn {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace attn
