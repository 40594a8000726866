// The products without a BLAS: the web build's (WebAssembly has no OpenBLAS). Eigen's own
// products, with gemm_openblas.cpp's contract (numerics/gemm.h). Eigen blocks its sums
// otherwise than OpenBLAS, so results differ in the last bits: within every stage's
// tolerance, as a sum taken in another order does.
#include "numerics/gemm.h"

#ifdef __wasm_simd128__
#include "numerics/gemm_simd128.h"
#endif

namespace attn {

namespace {

// c = alpha * a b + beta * c, where a and b are already op(a) and op(b). With beta = 0,
// c is not read (a BLAS does not read it either: a NaN left there must not propagate).
template <class A, class B>
void product(float alpha, const A& a, const B& b, float beta, MatrixView& c) {
    if (beta == 0.0f) {
        c.noalias() = alpha * a * b;
    } else {
        if (beta != 1.0f) c *= beta;
        c.noalias() += alpha * a * b;
    }
}

}  // namespace

void detail::multiply(float alpha, const ConstMatrixView& a, Transpose ta, const ConstMatrixView& b, Transpose tb,
                      float beta, MatrixView c) {
    const bool at = ta == Transpose::Yes, bt = tb == Transpose::Yes;
#ifdef __wasm_simd128__
    if (c.rows() >= kSimd128MinRows) return multiply_simd128(alpha, a, at, b, bt, beta, c);
#endif
    if (at && bt) product(alpha, a.transpose(), b.transpose(), beta, c);
    else if (at) product(alpha, a.transpose(), b, beta, c);
    else if (bt) product(alpha, a, b.transpose(), beta, c);
    else product(alpha, a, b, beta, c);
}

std::string blas_kernel_name() { return ""; }

std::string blas_description() {
#ifdef __wasm_simd128__
    return "no BLAS: WebAssembly SIMD products (gemm_simd128.cpp), Eigen's below 16 rows";
#endif
    return "no BLAS: Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
           std::to_string(EIGEN_MINOR_VERSION) + "'s products (" + Eigen::SimdInstructionSetsInUse() + ")";
}

}  // namespace attn
