#pragma once
// The one matrix type of the engine: float32, row-major like a PyTorch tensor,
// so that a flat index walks the same elements in the same order as torch does.
#include <Eigen/Core>  // all the engine needs: no decompositions
#include <limits>

namespace attn {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;

// What masked_fill(mask, -torch.inf) writes: a score no query may attend to.
inline constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

}  // namespace attn
