#pragma once
// GELU's tanh approximation over a run of floats, as the book's GELU module computes it:
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
#include <Eigen/Core>

namespace attn {

// out[j] = GELU(x[j]) for j < n. The tanh is Eigen's (its rational approximation, the one
// Eigen's vectorised and scalar tanh share), in the same operations and order as Eigen's
// SSE2 code: every build and every copy gives the same bits.
void gelu_tanh(const float* x, float* out, Eigen::Index n);

}  // namespace attn
