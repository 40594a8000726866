// Head-type scores (core/model/head_scores.h) against TransformerLens's detect_head ("mul"):
// hand-built perfect heads score the fraction of rows they get right, and the fast scores equal
// sum(A o P) / sum(A) taken densely over head_template.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/head_scores.h"

namespace {

using attn::HeadType;
using attn::Matrix;

const HeadType kAllTypes[] = {HeadType::PreviousToken, HeadType::DuplicateToken,
                              HeadType::Induction, HeadType::FirstToken};

using Cells = std::vector<std::pair<int, int>>;

Cells ones_of(const Matrix& P) {
    Cells cells;
    for (int i = 0; i < P.rows(); ++i)
        for (int j = 0; j < P.cols(); ++j) {
            if (P(i, j) == 1.0f) cells.emplace_back(i, j);
            else REQUIRE(P(i, j) == 0.0f);
        }
    return cells;
}

// A one-hot attention pattern: row i puts all its weight on key column[i].
Matrix one_hot_rows(const std::vector<int>& column) {
    const int T = static_cast<int>(column.size());
    Matrix A = Matrix::Zero(T, T);
    for (int i = 0; i < T; ++i) A(i, column[i]) = 1.0f;
    return A;
}

// A causal softmax pattern over random logits, as a real head's weights look.
Matrix random_causal_softmax(int T, std::mt19937& rng) {
    std::normal_distribution<float> logit(0.0f, 2.0f);
    Matrix A = Matrix::Zero(T, T);
    for (int i = 0; i < T; ++i) {
        float top = -INFINITY;
        for (int j = 0; j <= i; ++j) top = std::max(top, A(i, j) = logit(rng));
        float sum = 0.0f;
        for (int j = 0; j <= i; ++j) sum += A(i, j) = std::exp(A(i, j) - top);
        for (int j = 0; j <= i; ++j) A(i, j) /= sum;
    }
    return A;
}

// What the docs of TransformerLens feed detect_head for induction: a BOS token, then random
// tokens, then the same tokens again. Distinct tokens make the first half free of repeats, so
// each template's hits are known exactly.
std::vector<int64_t> bos_then_repeated_twice(int half, unsigned seed) {
    std::vector<int64_t> vocab(50000);
    std::iota(vocab.begin(), vocab.end(), 0);
    std::mt19937 rng(seed);
    std::shuffle(vocab.begin(), vocab.end(), rng);
    std::vector<int64_t> ids = {50256};  // GPT-2's <|endoftext|>, which TransformerLens prepends
    ids.insert(ids.end(), vocab.begin(), vocab.begin() + half);
    ids.insert(ids.end(), vocab.begin(), vocab.begin() + half);
    return ids;
}

double dense_score(const Matrix& A, const Matrix& P) {
    const double total = A.cast<double>().sum();
    return A.cast<double>().cwiseProduct(P.cast<double>()).sum() / total;
}

double field(const attn::HeadScores& s, HeadType type) {
    switch (type) {
        case HeadType::PreviousToken: return s.previous_token;
        case HeadType::DuplicateToken: return s.duplicate_token;
        case HeadType::Induction: return s.induction;
        case HeadType::FirstToken: return s.first_token;
    }
    return NAN;
}

}  // namespace

TEST_CASE("head templates match TransformerLens's on a small sequence", "[head_scores]") {
    // Built by transliterating head_detector.py's get_*_detection_pattern for these ids.
    const std::vector<int64_t> ids = {7, 3, 3, 7};
    CHECK(ones_of(attn::head_template(HeadType::PreviousToken, ids)) == Cells{{1, 0}, {2, 1}, {3, 2}});
    // The diagonal is not a duplicate: TransformerLens zeroes it.
    CHECK(ones_of(attn::head_template(HeadType::DuplicateToken, ids)) == Cells{{2, 1}, {3, 0}});
    // (2, 2): token 2 repeats token 1, and the token after token 1 is token 2 itself. The
    // shifted duplicate pattern keeps that diagonal cell.
    CHECK(ones_of(attn::head_template(HeadType::Induction, ids)) == Cells{{2, 2}, {3, 1}});
    CHECK(ones_of(attn::head_template(HeadType::FirstToken, ids)) ==
          Cells{{0, 0}, {1, 0}, {2, 0}, {3, 0}});
    for (HeadType type : kAllTypes) CHECK(attn::head_template(type, {}).size() == 0);
}

TEST_CASE("a perfect previous-token head", "[head_scores]") {
    for (int T : {2, 5, 64}) {
        CAPTURE(T);
        std::vector<int> column(T);
        for (int i = 1; i < T; ++i) column[i] = i - 1;  // row 0 can only attend to itself
        const Matrix A = one_hot_rows(column);
        const std::vector<int64_t> ids(T, 0);  // the ids do not enter either template
        // Row 0 has no previous token, so (T-1)/T is the best a head can do.
        CHECK(attn::head_score(A, ids, HeadType::PreviousToken) == double(T - 1) / T);
        // Rows 0 and 1 both sit on column 0: the row-1 cell is previous-token and first-token.
        CHECK(attn::head_score(A, ids, HeadType::FirstToken) == 2.0 / T);
    }
}

TEST_CASE("all mass on the first token is a perfect sink", "[head_scores]") {
    const int T = 12;
    const Matrix A = one_hot_rows(std::vector<int>(T, 0));
    const std::vector<int64_t> ids = {4, 4, 4, 1, 2, 4, 3, 3, 9, 4, 1, 0};
    const attn::HeadScores s = attn::head_scores(A, ids);
    CHECK(s.first_token == 1.0);
    CHECK(s.previous_token == 1.0 / T);              // row 1
    CHECK(s.duplicate_token == 4.0 / T);             // the later 4s, rows 1, 2, 5, 9, repeat token 0
    CHECK(s.induction == 0.0);                       // column 0 follows no token
    CHECK(s.induction_stripe == 0.0);
    CHECK(attn::dominant_type(s, 0.4) == HeadType::FirstToken);
}

TEST_CASE("perfect induction and duplicate heads on repeated random tokens", "[head_scores]") {
    for (unsigned seed : {1u, 2u, 3u}) {
        for (int half : {2, 10, 50}) {
            CAPTURE(seed, half);
            const std::vector<int64_t> ids = bos_then_repeated_twice(half, seed);
            const int T = static_cast<int>(ids.size());  // 2 * half + 1
            const double fraction = double(half) / T;     // the second half's rows

            // The first half has no earlier occurrence to go by: those rows attend to themselves.
            std::vector<int> induction(T), duplicate(T);
            for (int i = 0; i < T; ++i) induction[i] = duplicate[i] = i;
            for (int i = half + 1; i < T; ++i) {
                induction[i] = i - half + 1;  // the token after this one's first occurrence
                duplicate[i] = i - half;      // this one's first occurrence
            }

            const attn::HeadScores ind = attn::head_scores(one_hot_rows(induction), ids);
            CHECK(ind.induction == fraction);
            CHECK(ind.induction_stripe == 1.0);  // every row with an earlier copy, wholly on the stripe
            CHECK(attn::dominant_type(ind, 0.4) == HeadType::Induction);
            CHECK(ind.duplicate_token == 0.0);
            // With two tokens repeated, i - half + 1 is i - 1: the two templates coincide.
            CHECK(ind.previous_token == (half == 2 ? fraction : 0.0));

            const attn::HeadScores dup = attn::head_scores(one_hot_rows(duplicate), ids);
            CHECK(dup.duplicate_token == fraction);
            CHECK(dup.induction == 0.0);
            CHECK(dup.induction_stripe == 0.0);
            CHECK(dup.previous_token == 0.0);
        }
    }
}

TEST_CASE("head_score equals sum(A o P) / sum(A) over head_template", "[head_scores]") {
    for (unsigned seed = 1; seed <= 12; ++seed) {
        std::mt19937 rng(seed);
        const int T = std::uniform_int_distribution<int>(1, 64)(rng);
        // A small vocabulary forces repeats, back-to-back ones too (the induction diagonal).
        const int vocab = std::uniform_int_distribution<int>(1, 6)(rng);
        std::uniform_int_distribution<int64_t> token(0, vocab - 1);
        std::vector<int64_t> ids(T);
        for (auto& id : ids) id = token(rng);
        const Matrix A = random_causal_softmax(T, rng);
        const attn::HeadScores all = attn::head_scores(A, ids);
        for (HeadType type : kAllTypes) {
            CAPTURE(seed, T, vocab, attn::head_type_name(type));
            const double expected = dense_score(A, attn::head_template(type, ids));
            CHECK(attn::head_score(A, ids, type) == Approx(expected).epsilon(1e-12).margin(1e-15));
            CHECK(field(all, type) == Approx(expected).epsilon(1e-12).margin(1e-15));
        }
        // The stripe: the induction template's mass over the mass of the rows whose token came
        // before (the duplicate template's nonempty rows).
        const Matrix P = attn::head_template(HeadType::Induction, ids);
        const Matrix dup = attn::head_template(HeadType::DuplicateToken, ids);
        double on = 0.0, rows = 0.0;
        for (Eigen::Index i = 0; i < T; ++i)
            if (dup.row(i).sum() > 0.0f) {
                rows += A.row(i).cast<double>().sum();
                on += A.row(i).cast<double>().cwiseProduct(P.row(i).cast<double>()).sum();
            }
        CAPTURE(seed, T, vocab);
        CHECK(all.induction_stripe == Approx(rows > 0.0 ? on / rows : 0.0).epsilon(1e-12).margin(1e-15));
    }
}

TEST_CASE("weights that are not T x T throw, zero weights score 0", "[head_scores]") {
    const std::vector<int64_t> ids = {1, 2, 1, 2};
    for (const Matrix& wrong : {Matrix(Matrix::Zero(3, 3)), Matrix(Matrix::Zero(4, 3)),
                                Matrix(Matrix::Zero(3, 4)), Matrix(Matrix::Zero(5, 5))}) {
        CAPTURE(wrong.rows(), wrong.cols());
        for (HeadType type : kAllTypes) CHECK_THROWS_AS(attn::head_score(wrong, ids, type), std::invalid_argument);
        CHECK_THROWS_AS(attn::head_scores(wrong, ids), std::invalid_argument);
    }
    const Matrix zero = Matrix::Zero(4, 4);
    for (HeadType type : kAllTypes) CHECK(attn::head_score(zero, ids, type) == 0.0);
    CHECK(attn::head_score(Matrix(0, 0), {}, HeadType::Induction) == 0.0);
}

TEST_CASE("dominant_type picks the largest score at or above the threshold", "[head_scores]") {
    // Induction competes with its stripe, not with the share of every row.
    CHECK(attn::dominant_type({0.1, 0.5, 0.3, 0.2, 0.7}, 0.4) == HeadType::Induction);
    CHECK(attn::dominant_type({0.1, 0.5, 0.7, 0.2, 0.0}, 0.4) == HeadType::DuplicateToken);
    CHECK(attn::dominant_type({0.6, 0.1, 0.1, 0.2}, 0.4) == HeadType::PreviousToken);
    CHECK(attn::dominant_type({0.1, 0.45, 0.3, 0.1}, 0.4) == HeadType::DuplicateToken);
    CHECK(attn::dominant_type({0.1, 0.1, 0.1, 0.9}, 0.4) == HeadType::FirstToken);
    CHECK(attn::dominant_type({0.4, 0.1, 0.1, 0.1}, 0.4) == HeadType::PreviousToken);  // at least
    CHECK_FALSE(attn::dominant_type({0.3, 0.2, 0.1, 0.1, 0.39}, 0.4).has_value());
    CHECK_FALSE(attn::dominant_type({0.0, 0.0, 0.0, 0.0}, 0.4).has_value());
}

TEST_CASE("head type names", "[head_scores]") {
    CHECK(std::string(attn::head_type_name(HeadType::PreviousToken)) == "previous-token");
    CHECK(std::string(attn::head_type_name(HeadType::DuplicateToken)) == "duplicate-token");
    CHECK(std::string(attn::head_type_name(HeadType::Induction)) == "induction");
    CHECK(std::string(attn::head_type_name(HeadType::FirstToken)) == "first-token sink");
    CHECK(std::string(attn::head_type_short(HeadType::PreviousToken)) == "prev");
    CHECK(std::string(attn::head_type_short(HeadType::DuplicateToken)) == "dup");
    CHECK(std::string(attn::head_type_short(HeadType::Induction)) == "ind");
    CHECK(std::string(attn::head_type_short(HeadType::FirstToken)) == "sink");
}
