#pragma once
// The engine's large matrix products, through OpenBLAS: its kernels are chosen for the
// CPU when the program starts (AVX2, AVX-512, ...), so the portable build (the Debian
// package, built without -march=native) multiplies as fast as a build for this machine.
// Eigen's own products, compiled for plain x86-64, use SSE2 only: several times slower.
//
// OpenBLAS runs single-threaded here; the engine splits the work itself (rows or columns of a
// product, or heads) over OpenMP's threads, so that one setting (OMP_NUM_THREADS)
// controls all threads and a product computed in a thread never starts threads of its own.
#include <optional>
#include <string>

#include "numerics/tensor.h"

namespace attn {

// A view of a row-major matrix or of a block of one (rows may be further apart than cols).
using MatrixView = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;
using ConstMatrixView = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;

enum class Transpose { No, Yes };

// The matrix products' rate that time estimates assume (the memory budget's, a lesson's, a
// model run's): taken low, so that admitted work ends well inside its estimate on a shared
// 2-core machine, which manages 20-60 GFLOP/s with both cores (55e9 measured with softmax;
// the shipped model's run of 64 tokens reaches ~90e9 on one AVX-512 core). 5e9 made each
// 14-token lesson step look like 64 ms (it takes ~5 ms).
constexpr double kEstimatedFlopsPerSecond = 20e9;

// c = alpha * op(a) @ op(b) + beta * c, op(x) = x or x^T; c must already have its shape.
// Outside a parallel region, a product large enough is split over the OpenMP threads, by
// rows of c, or by its columns when it has at most 128 rows and more columns (so that each
// thread packs a part of the wide operand, not all of it): each element is still one BLAS
// dot product over k, equal to the unsplit product's to rounding (tests/test_gemm.cpp).
void gemm(float alpha, const ConstMatrixView& a, Transpose ta, const ConstMatrixView& b, Transpose tb, float beta,
          MatrixView c);

// gemm's back end, once gemm (gemm.cpp) has checked the shapes and m, n, k > 0: through
// OpenBLAS (gemm_openblas.cpp) or, in a build without a BLAS, Eigen's own (gemm_eigen.cpp).
namespace detail {
void multiply(float alpha, const ConstMatrixView& a, Transpose ta, const ConstMatrixView& b, Transpose tb, float beta,
              MatrixView c);
}

// a @ b: (m x k) @ (k x n) -> m x n
Matrix matmul(const ConstMatrixView& a, const ConstMatrixView& b);
// a @ b^T: (m x k) @ (n x k)^T -> m x n, as queries @ keys.transpose()
Matrix matmul_transposed(const ConstMatrixView& a, const ConstMatrixView& b);

// x @ op(w) + bias in every row (bias 1 x n, or none): nn.Linear, as torch's addmm computes
// it: every row of the result starts as the bias and the product is added to it (beta = 1),
// rather than the product written and the bias added in a pass of its own.
Matrix linear_product(const ConstMatrixView& x, const ConstMatrixView& w, Transpose tw, const std::optional<RowVector>& bias);

// The threads the engine's loops use (OMP_NUM_THREADS; 1 without OpenMP).
int engine_threads();

// The BLAS library in use and the CPU kernels it chose ("OpenBLAS 0.3.21 ... Haswell").
std::string blas_description();
// The name of the kernels alone ("Haswell"); empty without a BLAS.
std::string blas_kernel_name();

}  // namespace attn
