#pragma once
// What the seed tests share (test_chapter3_notebook.cpp, test_book_text_and_notes.cpp):
// the printed tensors as matrices and the check of the engine against them, to the
// precision they print: half a unit of the 4th decimal torch printed, plus the rounding of
// the tensor's own scale (kStageRelative, tolerance.h) for a value near a printed digit's
// half-way point.
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
#include "tolerance.h"

using attn::Matrix;

namespace seeds {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr double kPrintedHalfDigit = 0.5e-4;

inline Matrix printed(int rows, int cols, std::initializer_list<float> values) {
    REQUIRE(values.size() == static_cast<size_t>(rows) * static_cast<size_t>(cols));
    Matrix m(rows, cols);
    std::copy(values.begin(), values.end(), m.data());
    return m;
}

inline Matrix printed_row(std::initializer_list<float> values) {
    return printed(1, static_cast<int>(values.size()), values);
}

// The first element of the engine's tensor off the printed one by more than the printed
// precision, described; empty if none (-inf must be -inf in both).
inline std::string printed_mismatch(const Matrix& actual, const Matrix& expected) {
    std::ostringstream why;
    if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
        why << "shape " << actual.rows() << " x " << actual.cols() << ", printed " << expected.rows() << " x " << expected.cols();
        return why.str();
    }
    const double tolerance = kPrintedHalfDigit + attn::test::kStageRelative * attn::test::stage_scale(expected);
    int bad = 0;
    for (Eigen::Index r = 0; r < expected.rows(); ++r)
        for (Eigen::Index c = 0; c < expected.cols(); ++c) {
            const float a = actual(r, c), e = expected(r, c);
            const bool ok = std::isinf(e) ? a == e : std::fabs(double(a) - double(e)) <= tolerance;
            if (!ok && bad++ == 0) why << "[" << r << "][" << c << "]: engine " << a << ", printed " << e;
        }
    if (bad > 0) why << " (" << bad << " elements beyond " << tolerance << ")";
    return why.str();
}

// The engine's tensor against the printed one, both shown when they differ.
inline void check_printed(const Matrix& actual, const Matrix& expected) {
    const std::string why = printed_mismatch(actual, expected);
    INFO("first difference " << why << "\nengine:\n" << actual << "\nprinted:\n" << expected);
    CHECK(why.empty());
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

// 000 3.5.1: masked_simple_norm and the -inf softmax of SelfAttention_v2 (seed 789).
inline const Matrix& causal_789_weights() {
    static const Matrix m = printed(6, 6, {1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
                                           0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000,
                                           0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000,
                                           0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000,
                                           0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000,
                                           0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529});
    return m;
}

// 000 3.5.3: CausalAttention's output (seed 123, dropout 0) for one copy of the sentence.
inline const Matrix& causal_123_output() {
    static const Matrix m = printed(6, 2, {-0.4519, 0.2216,
                                           -0.5874, 0.0058,
                                           -0.6300, -0.0632,
                                           -0.5675, -0.0843,
                                           -0.5526, -0.0981,
                                           -0.5299, -0.1081});
    return m;
}

}  // namespace seeds

using namespace seeds;
