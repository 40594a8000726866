// The Box-Muller transform in plain float loops that GCC vectorises at the CPU's width
// (an AVX2 copy runs where the CPU has it: vector_clones.h). It was Eigen's log, sin and cos,
// compiled for the portable build's SSE2 and each with its own range reduction: 57% of
// building nn.Embedding(50257, 768). Here Cephes' logf and one reduction for both sine and
// cosine (Cephes' sinf/cosf polynomials), within an ulp or two of the Sleef functions torch
// calls. No fused multiply-add in any copy (this file is compiled with -ffp-contract=off),
// so every machine, the browser's included, draws the same numbers.
#include "numerics/box_muller.h"

#include <cstdint>

#include "numerics/vector_clones.h"

namespace attn {

namespace {

// log(x) for a normal float x in (0, 1]: x = m 2^e with m in [sqrt(1/2), sqrt(2)), then
// log(m) = m - m^2 / 2 + m^3 P(m) about m = 1 (Cephes' logf).
inline float log_unit(float x) {
    const uint32_t bits = __builtin_bit_cast(uint32_t, x);
    float e = static_cast<float>(static_cast<int32_t>(bits >> 23) - 126);  // x = f 2^e, f in [1/2, 1)
    const float f = __builtin_bit_cast(float, (bits & 0x007fffffu) | 0x3f000000u);
    const bool low = f < 0.707106781186547524f;
    e = low ? e - 1.0f : e;
    const float m = (low ? f + f : f) - 1.0f;
    const float z = m * m;
    float p = 7.0376836292e-2f;
    p = p * m - 1.1514610310e-1f;
    p = p * m + 1.1676998740e-1f;
    p = p * m - 1.2420140846e-1f;
    p = p * m + 1.4249322787e-1f;
    p = p * m - 1.6668057665e-1f;
    p = p * m + 2.0000714765e-1f;
    p = p * m - 2.4999993993e-1f;
    p = p * m + 3.3333331174e-1f;
    float y = m * (z * p);
    y = y + -2.12194440e-4f * e;  // ln 2 in two parts: this one and 0.693359375
    y = y + -0.5f * z;
    return (m + y) + 0.693359375f * e;
}

// sin and cos of x in [0, 2 pi]: x = j pi/4 + r with j even and |r| <= pi/4 (pi/4 in three
// parts), then Cephes' polynomials for sin r and cos r, swapped and signed by j.
inline void sin_cos(float x, float& s, float& c) {
    const int32_t j = (static_cast<int32_t>(x * 1.27323954473516f) + 1) & ~1;
    const float y = static_cast<float>(j);
    const float r = ((x - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
    const float z = r * r;
    const float sin_r = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * r + r;
    const float cos_r =
        ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
    const bool swap = (j & 2) != 0;  // j = 2 or 6: sin x = +-cos r, cos x = -+sin r
    const float s_abs = swap ? cos_r : sin_r, c_abs = swap ? sin_r : cos_r;
    s = (j & 4) != 0 ? -s_abs : s_abs;
    c = ((j + 2) & 4) != 0 ? -c_abs : c_abs;
}

ATTN_VECTOR_BODY void box_muller_blocks_body(float* u, int64_t blocks) {
    const float two_pi = static_cast<float>(2.0 * 3.14159265358979323846);
    for (int64_t b = 0; b < blocks; ++b) {
        float* block = u + b * 16;
        for (int j = 0; j < 8; ++j) {
            const float radius = __builtin_sqrtf(-2.0f * log_unit(1.0f - block[j]));  // 1 - u in (0, 1]
            float s, c;
            sin_cos(two_pi * block[j + 8], s, c);
            block[j] = radius * c;
            block[j + 8] = radius * s;
        }
    }
}

}  // namespace

ATTN_VECTOR_COPIES2(void, box_muller_blocks, (float* u, int64_t blocks), (u, blocks))

}  // namespace attn
