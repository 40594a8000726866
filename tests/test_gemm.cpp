// gemm (numerics/gemm.h): every transpose of each operand, alpha and beta, through each
// way a product is split over threads (rows; columns when a few rows meet a wider
// operand; one thread), against the same product in double precision.
#include <catch2/catch.hpp>

#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "numerics/gemm.h"

namespace {

using Doubles = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A value that differs in every element and is exact in float: (i * 7 + j * 13) % 17 - 8, / 8.
attn::Matrix filled(Eigen::Index rows, Eigen::Index cols, int salt) {
    attn::Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = static_cast<float>((i * 7 + j * 13 + salt) % 17 - 8) / 8.0f;
    return m;
}

// The largest difference of c from alpha op(a) op(b) + beta c0 in double, over the largest |term sum|.
double relative_error(const attn::Matrix& a, bool ta, const attn::Matrix& b, bool tb, float alpha, float beta,
                      const attn::Matrix& c0, const attn::Matrix& c) {
    const Doubles A = ta ? Doubles(a.cast<double>().transpose()) : Doubles(a.cast<double>());
    const Doubles B = tb ? Doubles(b.cast<double>().transpose()) : Doubles(b.cast<double>());
    const Doubles want = double{alpha} * (A * B) + double{beta} * c0.cast<double>();
    return (c.cast<double>() - want).cwiseAbs().maxCoeff() / std::max(1.0, want.cwiseAbs().maxCoeff());
}

}  // namespace

TEST_CASE("gemm: op(a) op(b) for every transpose, split by rows, by columns or not at all", "[gemm]") {
#ifdef _OPENMP
    const int threads_before = omp_get_max_threads();
#endif
    // (m, n, k): 256 rows split by rows; 64 rows against 300 columns split by columns (in
    // parts of 16, the last one wider); 40 x 20 too small to split.
    for (const auto& [m, n, k] : {std::tuple<Eigen::Index, Eigen::Index, Eigen::Index>{256, 96, 128}, {64, 300, 128},
                                  {40, 20, 16}}) {
        for (const int threads : {1, 2, 3}) {
#ifdef _OPENMP
            omp_set_num_threads(threads);
#endif
            for (const bool ta : {false, true})
                for (const bool tb : {false, true}) {
                    const attn::Matrix a = ta ? filled(k, m, 1) : filled(m, k, 1);
                    const attn::Matrix b = tb ? filled(n, k, 2) : filled(k, n, 2);
                    const attn::Matrix c0 = filled(m, n, 3);
                    attn::Matrix c = c0;
                    attn::gemm(0.5f, a, ta ? attn::Transpose::Yes : attn::Transpose::No, b,
                               tb ? attn::Transpose::Yes : attn::Transpose::No, 2.0f, c);
                    INFO(m << " x " << n << " x " << k << ", " << threads << " threads, a" << (ta ? "^T" : "")
                           << " b" << (tb ? "^T" : ""));
                    CHECK(relative_error(a, ta, b, tb, 0.5f, 2.0f, c0, c) <= 1e-6);
                }
        }
    }
#ifdef _OPENMP
    omp_set_num_threads(threads_before);
#endif
}

TEST_CASE("linear_product: x @ op(w) + bias in every row, as nn.Linear's addmm", "[gemm]") {
    // 200 x 1400: large enough that the rows of bias are written over the threads; 3 x 40:
    // by one thread; 1 row: the matrix-vector product. Without a bias: the plain
    // product, bit for bit.
    for (const auto& [m, n, k] : {std::tuple<Eigen::Index, Eigen::Index, Eigen::Index>{200, 1400, 96}, {3, 40, 24}, {1, 40, 24}}) {
        for (const bool tw : {false, true}) {
            const attn::Matrix x = filled(m, k, 4);
            const attn::Matrix w = tw ? filled(n, k, 5) : filled(k, n, 5);
            const attn::RowVector bias = filled(1, n, 6);
            const attn::Transpose t = tw ? attn::Transpose::Yes : attn::Transpose::No;
            INFO(m << " x " << n << " x " << k << ", w" << (tw ? "^T" : ""));
            const attn::Matrix with_bias = attn::linear_product(x, w, t, bias);
            REQUIRE(with_bias.rows() == m);
            REQUIRE(with_bias.cols() == n);
            // c0 = the bias in every row, beta = 1: what the result must be.
            const attn::Matrix rows_of_bias = bias.replicate(m, 1);
            CHECK(relative_error(x, false, w, tw, 1.0f, 1.0f, rows_of_bias, with_bias) <= 1e-6);
            const attn::Matrix without = attn::linear_product(x, w, t, std::nullopt);
            CHECK(without == (tw ? attn::matmul_transposed(x, w) : attn::matmul(x, w)));
        }
    }
}
