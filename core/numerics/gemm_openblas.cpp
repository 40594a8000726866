// The products through OpenBLAS (every build but the web one; numerics/gemm.h says why).
#include "numerics/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <mutex>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

namespace {

// OpenBLAS starts with one thread per core; the engine's OpenMP loops do the splitting.
void blas_single_threaded() {
    static std::once_flag once;
    std::call_once(once, [] { openblas_set_num_threads(1); });
}

// Below ~4 MFLOP a thread's wake-up costs more than its share of the product saves.
// (Unused in a build without OpenMP, the ThreadSanitizer one.)
[[maybe_unused]] bool worth_splitting(Eigen::Index m, Eigen::Index n, Eigen::Index k) { return m >= 32 && m * n * k >= (1 << 21); }

// The block of c at rows row0.., columns n0..: those rows of op(a) (rows of a, or columns
// of a when it is transposed) times those columns of op(b) (columns of b, or its rows).
void gemm_block(float alpha, const ConstMatrixView& a, Transpose ta, const ConstMatrixView& b, Transpose tb,
                float beta, MatrixView& c, Eigen::Index row0, Eigen::Index rows, Eigen::Index n0, Eigen::Index cols) {
    const bool at = ta == Transpose::Yes, bt = tb == Transpose::Yes;
    const Eigen::Index k = at ? a.rows() : a.cols();
    const float* a0 = at ? a.data() + row0 : a.data() + row0 * a.outerStride();
    const float* b0 = bt ? b.data() + n0 * b.outerStride() : b.data() + n0;
    cblas_sgemm(CblasRowMajor, at ? CblasTrans : CblasNoTrans, bt ? CblasTrans : CblasNoTrans,
                static_cast<blasint>(rows), static_cast<blasint>(cols), static_cast<blasint>(k), alpha, a0,
                static_cast<blasint>(a.outerStride()), b0, static_cast<blasint>(b.outerStride()), beta,
                c.data() + row0 * c.outerStride() + n0, static_cast<blasint>(c.outerStride()));
}

// One row of c: op(b)'s columns times the row of a, as a matrix-vector product (sgemm
// with one row runs at a fraction of sgemv's speed); columns n0..n0 + cols of c.
void gemv_columns(float alpha, const float* a_row, const ConstMatrixView& b, Transpose tb, float beta, float* c_row,
                  Eigen::Index n0, Eigen::Index cols) {
    if (tb == Transpose::Yes)  // b is n x k: c = b a
        cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<blasint>(cols), static_cast<blasint>(b.cols()), alpha,
                    b.data() + n0 * b.outerStride(), static_cast<blasint>(b.outerStride()), a_row, 1, beta, c_row + n0, 1);
    else  // b is k x n: c = b^T a
        cblas_sgemv(CblasRowMajor, CblasTrans, static_cast<blasint>(b.rows()), static_cast<blasint>(cols), alpha,
                    b.data() + n0, static_cast<blasint>(b.outerStride()), a_row, 1, beta, c_row + n0, 1);
}

}  // namespace

void detail::multiply(float alpha, const ConstMatrixView& a, Transpose ta, const ConstMatrixView& b, Transpose tb,
                      float beta, MatrixView c) {
    const Eigen::Index m = c.rows(), n = c.cols();
    [[maybe_unused]] const Eigen::Index k = ta == Transpose::Yes ? a.rows() : a.cols();  // read by OpenMP only
    blas_single_threaded();
    if (m == 1 && ta == Transpose::No) {
        // One token's row (the KV cache's step): memory-bound, so each thread reads its
        // share of b's columns when b is large enough to be worth it.
        int threads = 1;
#ifdef _OPENMP
        if (!omp_in_parallel() && n * k >= (1 << 21)) threads = std::min<int>(omp_get_max_threads(), static_cast<int>(n / 64));
#endif
        if (threads <= 1) {
            gemv_columns(alpha, a.data(), b, tb, beta, c.data(), 0, n);
            return;
        }
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int t = 0; t < threads; ++t) {
            const Eigen::Index n0 = n * t / threads, n1 = n * (t + 1) / threads;
            gemv_columns(alpha, a.data(), b, tb, beta, c.data(), n0, n1 - n0);
        }
        return;
    }
    int threads = 1;
#ifdef _OPENMP
    if (!omp_in_parallel() && worth_splitting(m, n, k)) threads = std::min<int>(omp_get_max_threads(), static_cast<int>(m / 16));
#endif
    if (threads <= 1) {
        gemm_block(alpha, a, ta, b, tb, beta, c, 0, m, 0, n);
        return;
    }
    // Each thread packs the operand it shares in full: with a few rows against a wider
    // operand (a layer's weights and a few tokens), split its columns instead, in
    // multiples of 16 (OpenBLAS's kernels' tile), so that each packs only its part of the
    // weights. From 256 rows on, splitting the rows was the faster (docs/speed.md).
    const bool by_columns = m <= 128 && m < n;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int t = 0; t < threads; ++t) {
        if (by_columns) {
            const Eigen::Index n0 = n * t / threads / 16 * 16, n1 = t + 1 == threads ? n : n * (t + 1) / threads / 16 * 16;
            gemm_block(alpha, a, ta, b, tb, beta, c, 0, m, n0, n1 - n0);
        } else {
            const Eigen::Index row0 = m * t / threads, row1 = m * (t + 1) / threads;
            gemm_block(alpha, a, ta, b, tb, beta, c, row0, row1 - row0, 0, n);
        }
    }
}

std::string blas_kernel_name() { return openblas_get_corename(); }

std::string blas_description() {
    return std::string(openblas_get_config()) + " (kernels: " + openblas_get_corename() + ")";
}

}  // namespace attn
