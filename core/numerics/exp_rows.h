#pragma once
// A softmax row's inner loops, as fast as the CPU allows in a portable build: the exp, and
// the sum it is divided by.
#include <Eigen/Core>

namespace attn {

// x[j] = exp(x[j] - max) for j < n, every x[j] finite or -inf (-inf, and anything below
// -88.38, gives ~1e-38 as Eigen's exp does: the caller zeroes -inf elements).
void exp_shifted(float* x, Eigen::Index n, float max);

// x[j] /= divisor for j < n, as torch divides the scores by sqrt(d_k): the largest
// result (-inf when every one is -inf; NaN when any is NaN, as torch's max) and whether
// any is -inf. One pass where the portable build's Eigen took three (divide, maxCoeff, a
// search for -inf), each with SSE2's four lanes: they were 8.6% of an MHA forward at
// T = 1024 on one thread.
struct DividedRow {
    float max;
    bool any_minus_inf;
};
DividedRow divide_row(float* x, Eigen::Index n, float divisor);
// x[j] *= factor for j < n.
void scale_row(float* x, Eigen::Index n, float factor);

// x[0] + ... + x[n-1] in eight running sums, on every target alike. Eigen's sum() keeps
// eight where it vectorises (SSE2) and one where it does not (WebAssembly): one float
// sum over a vocabulary's 50257 probabilities lost 2e-4 of the largest.
float row_sum(const float* x, Eigen::Index n);

}  // namespace attn
