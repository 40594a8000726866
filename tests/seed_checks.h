#pragma once
// What the seed tests share (test_chapter3_notebook.cpp, test_book_text_and_notes.cpp):
// the printed tensors as matrices and the check of the engine against them, to the
// precision they print (4 decimals:
// |engine - printed| <= 0.5e-4, plus 1e-6 for float rounding).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "run/pipeline.h"
#include "settings/settings.h"
#include "numerics/torch_random.h"

using attn::Matrix;

namespace seeds {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr double kPrintedTolerance = 0.5e-4 + 1e-6;

inline Matrix printed(int rows, int cols, std::initializer_list<float> values) {
    REQUIRE(values.size() == static_cast<size_t>(rows) * static_cast<size_t>(cols));
    Matrix m(rows, cols);
    std::copy(values.begin(), values.end(), m.data());
    return m;
}

inline Matrix printed_row(std::initializer_list<float> values) {
    return printed(1, static_cast<int>(values.size()), values);
}

// The engine's tensor against the printed one: same shape, every element within the
// printed precision; -inf must be -inf in both.
inline void check_printed(const Matrix& actual, const Matrix& expected) {
    REQUIRE(actual.rows() == expected.rows());
    REQUIRE(actual.cols() == expected.cols());
    int bad = 0;
    std::ostringstream first;
    for (Eigen::Index r = 0; r < expected.rows(); ++r)
        for (Eigen::Index c = 0; c < expected.cols(); ++c) {
            const float a = actual(r, c), e = expected(r, c);
            const bool ok = std::isinf(e) ? a == e : std::fabs(double(a) - double(e)) <= kPrintedTolerance;
            if (!ok && bad++ == 0) first << "[" << r << "][" << c << "]: engine " << a << ", printed " << e;
        }
    INFO("first difference " << first.str() << "\nengine:\n" << actual << "\nprinted:\n" << expected);
    CHECK(bad == 0);
}

inline void check_printed(float actual, float expected) { check_printed(printed_row({actual}), printed_row({expected})); }

inline attn::Run run(const std::vector<std::string>& args) {
    const attn::ParsedArgs parsed = attn::parse_settings(args);
    REQUIRE(parsed.rest.empty());
    return attn::compute(parsed.settings);
}

inline const attn::HeadTrace& head(const attn::Run& r, size_t h = 0) { return r.trace.heads.at(h); }

// A B x T x d output as one (B*T) x d matrix, batch elements one after the other.
inline Matrix stacked_output(const attn::Run& r) {
    const auto& out = r.trace.output;
    Matrix m(static_cast<Eigen::Index>(out.size()) * out[0].rows(), out[0].cols());
    for (size_t b = 0; b < out.size(); ++b) m.middleRows(static_cast<Eigen::Index>(b) * out[0].rows(), out[0].rows()) = out[b];
    return m;
}

// The book's sentence with its hand-written 3-d vectors.
inline const std::vector<std::string> kBook = {"--text", "Your journey starts with one step", "--embedding", "book"};
// 004's sentence, embedded with nn.Embedding(50_000, 3) after manual_seed(123).
inline const std::vector<std::string> kLife = {"--text", "Life is short, eat dessert first"};

inline std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

// 000 3.5 / 001: what `print(masked)` shows: the raw scores with -inf where masked.
inline Matrix unscaled_masked(const attn::HeadTrace& h) {
    Matrix m = h.at("scores");
    const Matrix& mask = h.at("mask");
    for (Eigen::Index i = 0; i < m.size(); ++i)
        if (mask.data()[i] > 0.5f) m.data()[i] = -kInf;
    return m;
}

// The 0/2 matrix 000 and 001 print for dropout(torch.ones(6, 6)) after manual_seed(123).
inline const Matrix& dropout_example() {
    static const Matrix m = printed(6, 6, {2., 2., 0., 2., 2., 0.,
                                           0., 0., 0., 2., 0., 2.,
                                           2., 2., 2., 2., 0., 2.,
                                           0., 2., 2., 0., 0., 2.,
                                           0., 2., 0., 2., 0., 2.,
                                           0., 2., 2., 2., 2., 0.});
    return m;
}

}  // namespace seeds

using namespace seeds;
