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

int engine_threads() {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

}  // namespace attn
