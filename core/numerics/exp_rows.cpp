#include "numerics/exp_rows.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "numerics/tensor.h"
#include "numerics/vector_clones.h"

namespace attn {

namespace {

using RowArray = Eigen::Array<float, 1, Eigen::Dynamic>;

// Eigen's vectorised exp is compiled for the build's target: SSE2 in the portable build.
// On a CPU with AVX2 and FMA these copies compute 8 or 16 lanes at once with fused
// multiply-adds (Cephes' polynomial, as Eigen's; within 2 ulp of exp), the same operations
// on every lane, so both give the same bits. It was a quarter of a T = 1024 forward at one
// thread. This file is compiled with -fno-trapping-math, without which GCC will not turn
// the clamps into vector min/max (no FP exception is ever looked at).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define ATTN_EXP_DISPATCH 1
__attribute__((always_inline)) inline void exp_shifted_lanes(float* x, Eigen::Index n, float max) {
    for (Eigen::Index j = 0; j < n; ++j) {
        float v = x[j] - max;
        const bool nan = v != v;  // exp(nan) is nan, and nan must never reach the int conversion
        v = nan ? 0.0f : v;
        v = v < -88.3762626647949f ? -88.3762626647949f : v;
        v = v > 88.3762626647949f ? 88.3762626647949f : v;
        const float k = std::floor(v * 1.44269504088896341f + 0.5f);  // exp(v) = 2^k exp(r)
        const float r = v - k * 0.693359375f - k * -2.12194440e-4f;  // ln 2 in two parts
        float p = 1.9875691500e-4f;
        p = p * r + 1.3981999507e-3f;
        p = p * r + 8.3334519073e-3f;
        p = p * r + 4.1665795894e-2f;
        p = p * r + 1.6666665459e-1f;
        p = p * r + 5.0000001201e-1f;
        p = p * (r * r) + r + 1.0f;
        const int32_t bits = (static_cast<int32_t>(k) + 127) << 23;  // 2^k, k in [-127, 128)
        float two_k;
        std::memcpy(&two_k, &bits, sizeof two_k);
        x[j] = nan ? x[j] - max : p * two_k;
    }
}
__attribute__((target("avx2,fma"))) void exp_shifted_avx2(float* x, Eigen::Index n, float max) {
    exp_shifted_lanes(x, n, max);
}
__attribute__((target("avx512f,fma"))) void exp_shifted_avx512(float* x, Eigen::Index n, float max) {
    exp_shifted_lanes(x, n, max);
}
#endif

}  // namespace

void exp_shifted(float* x, Eigen::Index n, float max) {
#ifdef ATTN_EXP_DISPATCH
    if (vector_width() == VectorWidth::avx512) {
        exp_shifted_avx512(x, n, max);
        return;
    }
    if (vector_width() >= VectorWidth::avx2) {  // AVX2 with FMA
        exp_shifted_avx2(x, n, max);
        return;
    }
#endif
    Eigen::Map<RowArray> r(x, n);
    r = (r - max).exp();
}

#if defined(__GNUC__) && !defined(__clang__)
// GCC's vector types: eight lanes of running maxima, -inf and NaN flags, one AVX2 register
// each in the AVX2 copy (two SSE2 ones in the other). GCC left a plain loop scalar (a
// compare and a cmov an element). Clang (the browser's build) runs the plain loop below.
#define ATTN_DIVIDE_ROW_LANES 1
using Floats8 = float __attribute__((vector_size(32)));
using Ints8 = int32_t __attribute__((vector_size(32)));
#endif

namespace {

ATTN_VECTOR_BODY DividedRow divide_row_body(float* x, Eigen::Index n, float divisor) {
    DividedRow out{kMinusInf, false};
    bool has_nan = false;
    Eigen::Index j = 0;
#ifdef ATTN_DIVIDE_ROW_LANES
    const Floats8 minus_inf = Floats8{} + kMinusInf;
    Floats8 max = minus_inf;
    Ints8 any = Ints8{}, nan = Ints8{};
    for (; j + 8 <= n; j += 8) {
        Floats8 v;
        std::memcpy(&v, x + j, sizeof v);
        v = v / divisor;  // each lane divided, as a scalar would be
        std::memcpy(x + j, &v, sizeof v);
        max = v > max ? v : max;  // the order of a maximum does not change it
        any |= v == minus_inf;
        nan |= v != v;
    }
    for (int k = 0; k < 8; ++k) {
        out.max = max[k] > out.max ? max[k] : out.max;
        out.any_minus_inf = out.any_minus_inf || any[k] != 0;
        has_nan = has_nan || nan[k] != 0;
    }
#endif
    for (; j < n; ++j) {
        x[j] /= divisor;
        out.max = x[j] > out.max ? x[j] : out.max;
        out.any_minus_inf = out.any_minus_inf || x[j] == kMinusInf;
        has_nan = has_nan || x[j] != x[j];
    }
    if (has_nan) out.max = std::numeric_limits<float>::quiet_NaN();  // torch's max propagates NaN
    return out;
}

ATTN_VECTOR_BODY void scale_row_body(float* x, Eigen::Index n, float factor) {
    for (Eigen::Index j = 0; j < n; ++j) x[j] *= factor;
}

}  // namespace

ATTN_VECTOR_COPIES2(DividedRow, divide_row, (float* x, Eigen::Index n, float divisor), (x, n, divisor))
ATTN_VECTOR_COPIES2(void, scale_row, (float* x, Eigen::Index n, float factor), (x, n, factor))

float row_sum(const float* x, Eigen::Index n) {
    using Lanes = Eigen::Array<float, 8, 1>;
    Lanes sums = Lanes::Zero();
    Eigen::Index j = 0;
    for (; j + 8 <= n; j += 8) sums += Eigen::Map<const Lanes>(x + j);
    float tail = 0.0f;
    for (; j < n; ++j) tail += x[j];
    return sums.sum() + tail;
}

}  // namespace attn
