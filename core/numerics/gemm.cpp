// What every products' back end shares (gemm_openblas.cpp, gemm_eigen.cpp).
#include "numerics/gemm.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

void gemm(float alpha, const ConstMatrixView& a, Transpose ta, const ConstMatrixView& b, Transpose tb, float beta,
          MatrixView c) {
    const bool at = ta == Transpose::Yes, bt = tb == Transpose::Yes;
    const Eigen::Index m = at ? a.cols() : a.rows(), k = at ? a.rows() : a.cols();
    const Eigen::Index n = bt ? b.rows() : b.cols(), kb = bt ? b.cols() : b.rows();
    eigen_assert(k == kb && c.rows() == m && c.cols() == n);
    (void)kb;
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum is 0: c * beta, as a BLAS leaves it
        c *= beta;
        return;
    }
    detail::multiply(alpha, a, ta, b, tb, beta, c);
}

Matrix matmul(const ConstMatrixView& a, const ConstMatrixView& b) {
    Matrix c(a.rows(), b.cols());
    gemm(1.0f, a, Transpose::No, b, Transpose::No, 0.0f, c);
    return c;
}

Matrix matmul_transposed(const ConstMatrixView& a, const ConstMatrixView& b) {
    Matrix c(a.rows(), b.rows());
    gemm(1.0f, a, Transpose::No, b, Transpose::Yes, 0.0f, c);
    return c;
}

Matrix linear_product(const ConstMatrixView& x, const ConstMatrixView& w, Transpose tw, const std::optional<RowVector>& bias) {
    const Eigen::Index m = x.rows(), n = tw == Transpose::Yes ? w.rows() : w.cols();
    Matrix c(m, n);  // (m x k) @ (k x n) -> m x n
    if (!bias) {
        gemm(1.0f, x, Transpose::No, w, tw, 0.0f, c);
        return c;
    }
    eigen_assert(bias->size() == n);
    // A pass over all of c: in parts over the threads when it is large (a layer's T x 4d).
#pragma omp parallel for schedule(static) if (m * n >= (1 << 18))
    for (Eigen::Index i = 0; i < m; ++i) c.row(i) = *bias;
    gemm(1.0f, x, Transpose::No, w, tw, 1.0f, c);
    return c;
}

int engine_threads() {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

}  // namespace attn
