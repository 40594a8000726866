#include "numerics/gelu_rows.h"

#include <cmath>

#include "numerics/vector_clones.h"

namespace attn {

namespace {

// Eigen 3.4's generic_fast_tanh_float (Eigen/src/Core/MathFunctionsImpl.h) without fused
// multiply-adds (the portable build's): the input clamped to +-7.9053111, x itself below
// 0.0004, else an odd polynomial over an even one. The clamps are Eigen's SSE pmin/pmax,
// with their order of operands (a NaN passes through).
inline float eigen_tanh(float a) {
    constexpr float kClamp = 7.90531110763549805f;
    float x = kClamp < a ? kClamp : a;
    x = -kClamp > x ? -kClamp : x;
    const bool tiny = std::fabs(a) < 0.0004f;
    const float x2 = x * x;
    float p = x2 * -2.76076847742355e-16f + 2.00018790482477e-13f;
    p = x2 * p + -8.60467152213735e-11f;
    p = x2 * p + 5.12229709037114e-08f;
    p = x2 * p + 1.48572235717979e-05f;
    p = x2 * p + 6.37261928875436e-04f;
    p = x2 * p + 4.89352455891786e-03f;
    p = x * p;
    float q = x2 * 1.19825839466702e-06f + 1.18534705686654e-04f;
    q = x2 * q + 2.26843463243900e-03f;
    q = x2 * q + 4.89352518554385e-03f;
    return tiny ? x : p / q;
}

// Eight lanes in the AVX2 copy where Eigen's SSE2 code has four: GELU over GPT-2 small's
// T x 3072 hidden units was 3% of a forward at T = 1024. This file is compiled without
// contraction into fused multiply-adds, so that each copy does the same operations.
ATTN_VECTOR_BODY void gelu_tanh_body(const float* x, float* out, Eigen::Index n) {
    const float c = std::sqrt(2.0f / static_cast<float>(M_PI));  // torch.sqrt(torch.tensor(2.0 / torch.pi))
    for (Eigen::Index j = 0; j < n; ++j) {
        const float v = x[j];
        out[j] = 0.5f * v * (1.0f + eigen_tanh(c * (v + 0.044715f * (v * (v * v)))));
    }
}

}  // namespace

ATTN_VECTOR_COPIES2(void, gelu_tanh, (const float* x, float* out, Eigen::Index n), (x, out, n))

}  // namespace attn
