// What every products' back end shares (gemm_openblas.cpp, gemm_eigen.cpp).
#include "numerics/gemm.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

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
