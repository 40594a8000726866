#pragma once
// exp over a row, the softmax's inner loop, as fast as the CPU allows in a portable build.
#include <Eigen/Core>

namespace attn {

// x[j] = exp(x[j] - max) for j < n, every x[j] finite or -inf (-inf, and anything below
// -88.38, gives ~1e-38 as Eigen's exp does: the caller zeroes -inf elements).
void exp_shifted(float* x, Eigen::Index n, float max);

}  // namespace attn
