// The web build's matrix products in WebAssembly's 128-bit SIMD. Eigen 3.4 has no
// WebAssembly code of its own (EIGEN_VECTORIZE is off there) and its generic kernel ran
// MHA at T = 256, d = 768 5.2x slower than OpenBLAS at one thread (docs/web.md).
//
// The classic layout of a BLAS: B is packed into panels of 8 columns (k x 8, contiguous),
// A into blocks of 4 rows (4 x k, k-major), and a 4 x 8 micro-kernel keeps its 32 sums in
// eight 4-lane registers while it walks k: per step two loads of B, four broadcasts of A,
// 16 multiply-adds. Each element is summed over k in order, in passes of 256 steps;
// the order differs from OpenBLAS's blocking only in the last bits, within every stage's
// tolerance (the golden tests run on this under node).
#include "numerics/gemm_simd128.h"

#include <wasm_simd128.h>

#include <algorithm>
#include <vector>

namespace attn {

namespace {

constexpr int kRows = 4, kCols = 8;
constexpr int kDepth = 256;  // k per pass: a B panel (256 x 8 floats, 8 KB) and an A block stay in L1

// op(x)(r, c), whatever the storage.
inline float element(const ConstMatrixView& x, bool transposed, Eigen::Index r, Eigen::Index c) {
    return transposed ? x(c, r) : x(r, c);
}

// The sums of a 4 x 8 tile over `depth` steps: a is 4 floats a step, b 8 floats a step.
inline void tile(const float* a, const float* b, int depth, v128_t sums[kRows][2]) {
    for (int i = 0; i < kRows; ++i) sums[i][0] = sums[i][1] = wasm_f32x4_splat(0.0f);
    for (int p = 0; p < depth; ++p, a += kRows, b += kCols) {
        const v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4);
        for (int i = 0; i < kRows; ++i) {
            const v128_t ai = wasm_f32x4_splat(a[i]);
            sums[i][0] = wasm_f32x4_add(sums[i][0], wasm_f32x4_mul(ai, b0));
            sums[i][1] = wasm_f32x4_add(sums[i][1], wasm_f32x4_mul(ai, b1));
        }
    }
}

}  // namespace

void multiply_simd128(float alpha, const ConstMatrixView& a, bool at, const ConstMatrixView& b, bool bt, float beta,
                      MatrixView c) {
    const Eigen::Index m = c.rows(), n = c.cols(), k = at ? a.rows() : a.cols();
    const Eigen::Index panels = (n + kCols - 1) / kCols, blocks = (m + kRows - 1) / kRows;
    std::vector<float> packed_b, packed_a;
    float sums_out[kRows][kCols];
    for (Eigen::Index p0 = 0; p0 < k; p0 += kDepth) {
        const int depth = static_cast<int>(std::min<Eigen::Index>(kDepth, k - p0));
        // B's rows p0 .. p0 + depth, in panels of 8 columns (zeros past n).
        packed_b.assign(static_cast<size_t>(panels * depth * kCols), 0.0f);
        for (Eigen::Index j = 0; j < panels; ++j)
            for (int p = 0; p < depth; ++p)
                for (int q = 0; q < kCols && j * kCols + q < n; ++q)
                    packed_b[static_cast<size_t>((j * depth + p) * kCols + q)] = element(b, bt, p0 + p, j * kCols + q);
        packed_a.assign(static_cast<size_t>(depth * kRows), 0.0f);
        for (Eigen::Index ib = 0; ib < blocks; ++ib) {
            const Eigen::Index i0 = ib * kRows;
            const int rows = static_cast<int>(std::min<Eigen::Index>(kRows, m - i0));
            for (int p = 0; p < depth; ++p)
                for (int i = 0; i < kRows; ++i)
                    packed_a[static_cast<size_t>(p * kRows + i)] = i < rows ? element(a, at, i0 + i, p0 + p) : 0.0f;
            for (Eigen::Index j = 0; j < panels; ++j) {
                v128_t sums[kRows][2];
                tile(packed_a.data(), packed_b.data() + j * depth * kCols, depth, sums);
                for (int i = 0; i < kRows; ++i) {
                    wasm_v128_store(sums_out[i], sums[i][0]);
                    wasm_v128_store(sums_out[i] + 4, sums[i][1]);
                }
                const int cols = static_cast<int>(std::min<Eigen::Index>(kCols, n - j * kCols));
                // The first pass over k writes c (beta 0: c is not read, a NaN there must
                // not propagate); later passes add their part of the sum.
                for (int i = 0; i < rows; ++i)
                    for (int q = 0; q < cols; ++q) {
                        float& out = c(i0 + i, j * kCols + q);
                        const float part = alpha * sums_out[i][q];
                        if (p0 > 0) out += part;
                        else out = beta == 0.0f ? part : beta * out + part;
                    }
            }
        }
    }
}

}  // namespace attn
