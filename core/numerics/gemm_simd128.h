#pragma once
// The web build's products in WebAssembly's 128-bit SIMD (gemm_simd128.cpp), for
// gemm_eigen.cpp to use where they beat Eigen's generic kernel: products of at least
// kSimd128MinRows rows (a smaller one is cheaper than packing B for it).
#include "numerics/gemm.h"

namespace attn {

constexpr Eigen::Index kSimd128MinRows = 16;

// c = alpha * op(a) op(b) + beta * c (c not read when beta is 0); shapes already checked.
void multiply_simd128(float alpha, const ConstMatrixView& a, bool a_transposed, const ConstMatrixView& b,
                      bool b_transposed, float beta, MatrixView c);

}  // namespace attn
