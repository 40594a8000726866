// Every tensor the seed documents print, reproduced to the precision they print it
// (4 decimals: |engine - printed| <= 0.5e-4, plus 1e-6 for float rounding).
// The expected numbers are copied by hand from /work/shared/seeds/*: they are what
// PyTorch printed there, not values generated here.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "attention/pipeline.h"
#include "settings/settings.h"
#include "numerics/torch_random.h"

using attn::Matrix;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kPrintedTolerance = 0.5e-4 + 1e-6;

Matrix printed(int rows, int cols, std::initializer_list<float> values) {
    REQUIRE(values.size() == static_cast<size_t>(rows) * static_cast<size_t>(cols));
    Matrix m(rows, cols);
    std::copy(values.begin(), values.end(), m.data());
    return m;
}

Matrix printed_row(std::initializer_list<float> values) {
    return printed(1, static_cast<int>(values.size()), values);
}

// The engine's tensor against the printed one: same shape, every element within the
// printed precision; -inf must be -inf in both.
void check_printed(const Matrix& actual, const Matrix& expected) {
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

void check_printed(float actual, float expected) { check_printed(printed_row({actual}), printed_row({expected})); }

attn::Run run(const std::vector<std::string>& args) {
    const attn::ParsedArgs parsed = attn::parse_settings(args);
    REQUIRE(parsed.rest.empty());
    return attn::compute(parsed.settings);
}

const attn::HeadTrace& head(const attn::Run& r, size_t h = 0) { return r.trace.heads.at(h); }

// A B x T x d output as one (B*T) x d matrix, batch elements one after the other.
Matrix stacked_output(const attn::Run& r) {
    const auto& out = r.trace.output;
    Matrix m(static_cast<Eigen::Index>(out.size()) * out[0].rows(), out[0].cols());
    for (size_t b = 0; b < out.size(); ++b) m.middleRows(static_cast<Eigen::Index>(b) * out[0].rows(), out[0].rows()) = out[b];
    return m;
}

// The book's sentence with its hand-written 3-d vectors.
const std::vector<std::string> kBook = {"--text", "Your journey starts with one step", "--embedding", "book"};
// 004's sentence, embedded with nn.Embedding(50_000, 3) after manual_seed(123).
const std::vector<std::string> kLife = {"--text", "Life is short, eat dessert first"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

// 000 3.5 / 001: what `print(masked)` shows: the raw scores with -inf where masked.
Matrix unscaled_masked(const attn::HeadTrace& h) {
    Matrix m = h.at("scores");
    const Matrix& mask = h.at("mask");
    for (Eigen::Index i = 0; i < m.size(); ++i)
        if (mask.data()[i] > 0.5f) m.data()[i] = -kInf;
    return m;
}

// The 0/2 matrix 000 and 001 print for dropout(torch.ones(6, 6)) after manual_seed(123).
const Matrix& dropout_example() {
    static const Matrix m = printed(6, 6, {2., 2., 0., 2., 2., 0.,
                                           0., 0., 0., 2., 0., 2.,
                                           2., 2., 2., 2., 0., 2.,
                                           0., 2., 2., 0., 0., 2.,
                                           0., 2., 0., 2., 0., 2.,
                                           0., 2., 2., 2., 2., 0.});
    return m;
}

}  // namespace

// =====================================================================================
// 000: chapter 3 notebook
// =====================================================================================

TEST_CASE("000 3.3.1 attn_scores_2: dot products with query x^2", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "simplified"}));
    check_printed(head(r).at("scores").row(1), printed_row({0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865}));
}

TEST_CASE("000 3.3.1 res and torch.dot(inputs[0], query)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "simplified"}));
    check_printed(head(r).at("scores")(0, 1), 0.9544f);
}

TEST_CASE("000 3.3.1 attn_weights_2_tmp: naive normalisation by the sum", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "simplified"}));
    const Matrix scores = head(r).at("scores").row(1);
    const Matrix tmp = scores / scores.sum();
    check_printed(tmp, printed_row({0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656}));
    check_printed(tmp.sum(), 1.0000f);
}

TEST_CASE("000 3.3.1 attn_weights_2_naive: exp over the sum of exp", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "simplified"}));
    // std::exp per element, as softmax_naive's torch.exp (Eigen's vectorised exp trips a
    // GCC 12 -Wmaybe-uninitialized false positive in the AVX-512 headers).
    const Matrix e = head(r).at("scores").row(1).unaryExpr([](float v) { return std::exp(v); });
    const Matrix naive = e / e.sum();
    check_printed(naive, printed_row({0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581}));
    check_printed(naive.sum(), 1.0f);
}

TEST_CASE("000 3.3.1 attn_weights_2: torch.softmax of attn_scores_2", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "simplified"}));
    check_printed(head(r).at("weights").row(1), printed_row({0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581}));
    check_printed(head(r).at("weights").row(1).sum(), 1.0f);
}

TEST_CASE("000 3.3.1 context_vec_2 of the simplified attention", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "simplified"}));
    check_printed(head(r).at("context").row(1), printed_row({0.4419, 0.6515, 0.5683}));
}

TEST_CASE("000 3.3.2 attn_scores = inputs @ inputs.T", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "simplified"}));
    check_printed(head(r).at("scores"), printed(6, 6, {0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310,
                                                       0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865,
                                                       0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605,
                                                       0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565,
                                                       0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935,
                                                       0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450}));
}

TEST_CASE("000 3.3.2 attn_weights = softmax(attn_scores, dim=-1) and its row sums", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "simplified"}));
    const Matrix& w = head(r).at("weights");
    check_printed(w, printed(6, 6, {0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452,
                                    0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581,
                                    0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565,
                                    0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720,
                                    0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295,
                                    0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896}));
    check_printed(w.rowwise().sum().transpose(), printed_row({1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000}));
}

TEST_CASE("000 3.3.2 all_context_vecs = attn_weights @ inputs", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "simplified"}));
    check_printed(head(r).at("context"), printed(6, 3, {0.4421, 0.5931, 0.5790,
                                                        0.4419, 0.6515, 0.5683,
                                                        0.4431, 0.6496, 0.5671,
                                                        0.4304, 0.6298, 0.5510,
                                                        0.4671, 0.5910, 0.5266,
                                                        0.4177, 0.6503, 0.5645}));
}

TEST_CASE("000 3.4.1 query_2 = x_2 @ W_query (seed 123)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1"}));
    check_printed(head(r).at("queries").row(1), printed_row({0.4306, 1.4551}));
    CHECK(head(r).at("keys").rows() == 6);  // keys.shape: torch.Size([6, 2])
    CHECK(head(r).at("keys").cols() == 2);
    CHECK(head(r).at("values").rows() == 6);
    CHECK(head(r).at("values").cols() == 2);
}

TEST_CASE("000 3.4.1 attn_score_22 = query_2 . keys_2", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1"}));
    check_printed(head(r).at("scores")(1, 1), 1.8524f);
}

TEST_CASE("000 3.4.1 attn_scores_2 = query_2 @ keys.T", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1"}));
    check_printed(head(r).at("scores").row(1), printed_row({1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440}));
}

TEST_CASE("000 3.4.1 attn_weights_2 = softmax(attn_scores_2 / d_k**0.5)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1"}));
    check_printed(head(r).at("weights").row(1), printed_row({0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820}));
}

TEST_CASE("000 3.4.1 context_vec_2 = attn_weights_2 @ values", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1"}));
    check_printed(head(r).at("context").row(1), printed_row({0.3061, 0.8210}));
}

TEST_CASE("000 3.4.2 SelfAttention_v1 output (seed 123)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1", "--seed", "123"}));
    check_printed(stacked_output(r), printed(6, 2, {0.2996, 0.8053,
                                                    0.3061, 0.8210,
                                                    0.3058, 0.8203,
                                                    0.2948, 0.7939,
                                                    0.2927, 0.7891,
                                                    0.2990, 0.8040}));
}

TEST_CASE("000 3.4.2 SelfAttention_v2 output (seed 789)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "789"}));
    check_printed(stacked_output(r), printed(6, 2, {-0.0739, 0.0713,
                                                    -0.0748, 0.0703,
                                                    -0.0749, 0.0702,
                                                    -0.0760, 0.0685,
                                                    -0.0763, 0.0679,
                                                    -0.0754, 0.0693}));
}

namespace {
const Matrix& sa_v2_789_weights() {  // 000 3.5.1: print(attn_weights) before masking
    static const Matrix m = printed(6, 6, {0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510,
                                           0.2041, 0.1659, 0.1662, 0.1496, 0.1665, 0.1477,
                                           0.2036, 0.1659, 0.1662, 0.1498, 0.1664, 0.1480,
                                           0.1869, 0.1667, 0.1668, 0.1571, 0.1661, 0.1564,
                                           0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.1585,
                                           0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529});
    return m;
}
const Matrix& causal_789_weights() {  // 000 3.5.1: masked_simple_norm and the -inf softmax
    static const Matrix m = printed(6, 6, {1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
                                           0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000,
                                           0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000,
                                           0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000,
                                           0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000,
                                           0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529});
    return m;
}
}  // namespace

TEST_CASE("000 3.5.1 attn_weights of sa_v2 (seed 789) before masking", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "789"}));
    check_printed(head(r).at("weights"), sa_v2_789_weights());
}

TEST_CASE("000 3.5.1 mask_simple = tril(ones(6, 6))", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "789", "--causal"}));
    const Matrix tril = Matrix::Ones(6, 6) - head(r).at("mask");  // the engine's mask is its complement
    check_printed(tril, printed(6, 6, {1., 0., 0., 0., 0., 0.,
                                       1., 1., 0., 0., 0., 0.,
                                       1., 1., 1., 0., 0., 0.,
                                       1., 1., 1., 1., 0., 0.,
                                       1., 1., 1., 1., 1., 0.,
                                       1., 1., 1., 1., 1., 1.}));
    CHECK(head(r).at("mask") == attn::causal_mask(6, 6));  // triu(ones, diagonal=1)
}

TEST_CASE("000 3.5.1 masked_simple = attn_weights * mask_simple", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "789"}));
    const Matrix tril = Matrix::Ones(6, 6) - attn::causal_mask(6, 6);
    check_printed(head(r).at("weights").cwiseProduct(tril),
                  printed(6, 6, {0.1921, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
                                 0.2041, 0.1659, 0.0000, 0.0000, 0.0000, 0.0000,
                                 0.2036, 0.1659, 0.1662, 0.0000, 0.0000, 0.0000,
                                 0.1869, 0.1667, 0.1668, 0.1571, 0.0000, 0.0000,
                                 0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.0000,
                                 0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529}));
}

TEST_CASE("000 3.5.1 masked_simple_norm: renormalised rows", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "789"}));
    const Matrix masked = head(r).at("weights").cwiseProduct(Matrix::Ones(6, 6) - attn::causal_mask(6, 6));
    const Matrix norm = masked.array().colwise() / masked.rowwise().sum().array();
    check_printed(norm, causal_789_weights());
}

TEST_CASE("000 3.5.1 masked = attn_scores.masked_fill(mask, -inf)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "789", "--causal"}));
    check_printed(unscaled_masked(head(r)), printed(6, 6, {0.2899, -kInf, -kInf, -kInf, -kInf, -kInf,
                                                           0.4656, 0.1723, -kInf, -kInf, -kInf, -kInf,
                                                           0.4594, 0.1703, 0.1731, -kInf, -kInf, -kInf,
                                                           0.2642, 0.1024, 0.1036, 0.0186, -kInf, -kInf,
                                                           0.2183, 0.0874, 0.0882, 0.0177, 0.0786, -kInf,
                                                           0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078}));
}

TEST_CASE("000 3.5.1 attn_weights = softmax(masked / d_k**0.5)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "789", "--causal"}));
    check_printed(head(r).at("weights"), causal_789_weights());
}

TEST_CASE("000 3.5.2 dropout(example) with p = 0.5 after manual_seed(123)", "[seeds]") {
    attn::TorchGenerator g(123);
    check_printed(attn::torch_dropout_mask(g, 6, 6, 0.5), dropout_example());  // ones * mask
}

TEST_CASE("000 3.5.2 dropout(attn_weights) after manual_seed(123)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "789", "--causal"}));
    attn::TorchGenerator g(123);
    const Matrix dropped = head(r).at("weights").cwiseProduct(attn::torch_dropout_mask(g, 6, 6, 0.5));
    check_printed(dropped, printed(6, 6, {2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
                                          0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
                                          0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000,
                                          0.0000, 0.4921, 0.4925, 0.0000, 0.0000, 0.0000,
                                          0.0000, 0.3966, 0.0000, 0.3775, 0.0000, 0.0000,
                                          0.0000, 0.3327, 0.3331, 0.3084, 0.3331, 0.0000}));
}

TEST_CASE("000 3.5.3 CausalAttention on the batch of two (seed 123, dropout 0)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "causal", "--batch", "2", "--dropout", "0.0"}));
    REQUIRE(r.trace.output.size() == 2);
    check_printed(stacked_output(r), printed(12, 2, {-0.4519, 0.2216,
                                                     -0.5874, 0.0058,
                                                     -0.6300, -0.0632,
                                                     -0.5675, -0.0843,
                                                     -0.5526, -0.0981,
                                                     -0.5299, -0.1081,
                                                     -0.4519, 0.2216,
                                                     -0.5874, 0.0058,
                                                     -0.6300, -0.0632,
                                                     -0.5675, -0.0843,
                                                     -0.5526, -0.0981,
                                                     -0.5299, -0.1081}));
}

TEST_CASE("000 3.6.1 MultiHeadAttentionWrapper output (2 heads, seed 123)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "mha-wrapper", "--heads", "2", "--batch", "2"}));
    REQUIRE(r.trace.output.size() == 2);
    const Matrix one = printed(6, 4, {-0.4519, 0.2216, 0.4772, 0.1063,
                                      -0.5874, 0.0058, 0.5891, 0.3257,
                                      -0.6300, -0.0632, 0.6202, 0.3860,
                                      -0.5675, -0.0843, 0.5478, 0.3589,
                                      -0.5526, -0.0981, 0.5321, 0.3428,
                                      -0.5299, -0.1081, 0.5077, 0.3493});
    check_printed(r.trace.output[0], one);
    check_printed(r.trace.output[1], one);
}

TEST_CASE("000 3.6.2 MultiHeadAttention output (2 heads, d_out 2, seed 123)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "mha", "--heads", "2", "--d-out", "2", "--batch", "2"}));
    REQUIRE(r.trace.output.size() == 2);
    const Matrix one = printed(6, 2, {0.3190, 0.4858,
                                      0.2943, 0.3897,
                                      0.2856, 0.3593,
                                      0.2693, 0.3873,
                                      0.2639, 0.3928,
                                      0.2575, 0.4028});
    check_printed(r.trace.output[0], one);
    check_printed(r.trace.output[1], one);
}

// The engine has no public batched matmul; the simplified variant's `scores` stage is
// its X @ X.T (the same Eigen product every head's q @ k.T uses), so each head of `a`
// goes through run_attention as the simplified variant's input.
TEST_CASE("000 3.6.2 a @ a.transpose(2, 3), first_head and second_head", "[seeds]") {
    const Matrix heads[2] = {printed(3, 4, {0.2745, 0.6584, 0.2775, 0.8573,
                                            0.8993, 0.0390, 0.9268, 0.7388,
                                            0.7179, 0.7058, 0.9156, 0.4340}),
                             printed(3, 4, {0.0772, 0.3565, 0.1479, 0.5331,
                                            0.4066, 0.2318, 0.4545, 0.9737,
                                            0.4606, 0.5159, 0.4220, 0.5786})};
    const Matrix expected[2] = {printed(3, 3, {1.3208, 1.1631, 1.2879,
                                               1.1631, 2.2150, 1.8424,
                                               1.2879, 1.8424, 2.0402}),
                                printed(3, 3, {0.4391, 0.7003, 0.5903,
                                               0.7003, 1.3737, 1.0620,
                                               0.5903, 1.0620, 0.9912})};
    attn::AttentionConfig cfg;
    cfg.variant = attn::Variant::Simplified;
    for (int h = 0; h < 2; ++h) {
        INFO("head " << h);
        const attn::Trace t = attn::run_attention(heads[h], nullptr, cfg);
        check_printed(t.heads.at(0).at("scores"), expected[h]);
    }
}

// =====================================================================================
// 001: a learner's notes on causal attention and dropout (seed 123, W_q/W_k/W_v)
// =====================================================================================

namespace {
const Matrix& causal_123_weights() {  // 001: attention_weights after the -inf mask
    static const Matrix m = printed(6, 6, {1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
                                           0.4833, 0.5167, 0.0000, 0.0000, 0.0000, 0.0000,
                                           0.3190, 0.3408, 0.3402, 0.0000, 0.0000, 0.0000,
                                           0.2445, 0.2545, 0.2542, 0.2468, 0.0000, 0.0000,
                                           0.1994, 0.2060, 0.2058, 0.1935, 0.1953, 0.0000,
                                           0.1624, 0.1709, 0.1706, 0.1654, 0.1625, 0.1682});
    return m;
}
}  // namespace

TEST_CASE("001 SelfAttention_v2(3, 2) output (seed 123)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "123"}));
    check_printed(stacked_output(r), printed(6, 2, {-0.5337, -0.1051,
                                                    -0.5323, -0.1080,
                                                    -0.5323, -0.1079,
                                                    -0.5297, -0.1076,
                                                    -0.5311, -0.1066,
                                                    -0.5299, -0.1081}));
}

TEST_CASE("001 attention_weights before the mask (seed 123)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "123"}));
    check_printed(head(r).at("weights"), printed(6, 6, {0.1717, 0.1762, 0.1761, 0.1555, 0.1627, 0.1579,
                                                        0.1636, 0.1749, 0.1746, 0.1612, 0.1605, 0.1652,
                                                        0.1637, 0.1749, 0.1746, 0.1611, 0.1606, 0.1651,
                                                        0.1636, 0.1704, 0.1702, 0.1652, 0.1632, 0.1674,
                                                        0.1667, 0.1722, 0.1721, 0.1618, 0.1633, 0.1639,
                                                        0.1624, 0.1709, 0.1706, 0.1654, 0.1625, 0.1682}));
}

TEST_CASE("001 attention_weights after the -inf mask (seed 123)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "123", "--causal"}));
    check_printed(head(r).at("weights"), causal_123_weights());
}

TEST_CASE("001 dropout(example) with p = 0.5 after manual_seed(123)", "[seeds]") {
    attn::TorchGenerator g(123);
    check_printed(attn::torch_dropout_mask(g, 6, 6, 0.5), dropout_example());
}

TEST_CASE("001 second dropout call continues the generator: dropout(attention_weights)", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v2", "--seed", "123", "--causal"}));
    attn::TorchGenerator g(123);
    (void)attn::torch_dropout_mask(g, 6, 6, 0.5);  // print(dropout(example)) drew first
    const Matrix dropped = head(r).at("weights").cwiseProduct(attn::torch_dropout_mask(g, 6, 6, 0.5));
    check_printed(dropped, printed(6, 6, {2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
                                          0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
                                          0.0000, 0.6816, 0.6804, 0.0000, 0.0000, 0.0000,
                                          0.0000, 0.0000, 0.5085, 0.4936, 0.0000, 0.0000,
                                          0.0000, 0.0000, 0.0000, 0.0000, 0.3906, 0.0000,
                                          0.3249, 0.3418, 0.0000, 0.3308, 0.3249, 0.3363}));
}

// =====================================================================================
// 002: book section 3.4.1 (same seed-123 torch.rand weights as 000 3.4.1)
// =====================================================================================

TEST_CASE("002 query_2 = x_2 @ W_query", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1"}));
    check_printed(head(r).at("queries").row(1), printed_row({0.4306, 1.4551}));
}

TEST_CASE("002 attn_score_22", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1"}));
    check_printed(head(r).at("scores")(1, 1), 1.8524f);
}

TEST_CASE("002 attn_scores_2", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1"}));
    check_printed(head(r).at("scores").row(1), printed_row({1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440}));
}

TEST_CASE("002 attn_weights_2", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1"}));
    check_printed(head(r).at("weights").row(1), printed_row({0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820}));
}

TEST_CASE("002 context_vec_2", "[seeds]") {
    const attn::Run r = run(with(kBook, {"--variant", "self-v1"}));
    check_printed(head(r).at("context").row(1), printed_row({0.3061, 0.8210}));
}

// =====================================================================================
// 003: book chapters 1-3, the embedding table
// =====================================================================================

namespace {
const Matrix& embedding_6x3() {  // 003: torch.manual_seed(123); nn.Embedding(6, 3).weight
    static const Matrix m = printed(6, 3, {0.3374, -0.1778, -0.1690,
                                           0.9178, 1.5810, 1.3010,
                                           1.2753, -0.2010, -0.1606,
                                           -0.4015, 0.9666, -1.1481,
                                           -1.1589, 0.3255, -0.6315,
                                           -2.8400, -0.7849, -1.4096});
    return m;
}
}  // namespace

TEST_CASE("003 nn.Embedding(6, 3) weight after manual_seed(123)", "[seeds]") {
    attn::TorchGenerator g(123);
    check_printed(attn::torch_normal(g, 6, 3), embedding_6x3());
}

TEST_CASE("003 nn.Embedding(6, 3) rows through the pipeline (--vocab-size 6)", "[seeds]") {
    // Words a..f get ids 0..5 (sorted vocabulary), so token_embeddings is the whole table.
    const attn::Run r = run({"--variant", "self-v1", "--text", "a b c d e f", "--vocab-size", "6"});
    CHECK(r.embedding == "random");
    check_printed(r.trace.model.at("token_embeddings"), embedding_6x3());
}

// =====================================================================================
// 004: self-attention, multi-head, cross-attention and causal notebook
// =====================================================================================

namespace {
const Matrix& embedded_sentence() {
    static const Matrix m = printed(6, 3, {0.3374, -0.1778, -0.3035,
                                           0.1794, 1.8951, 0.4954,
                                           0.2692, -0.0770, -1.0205,
                                           -0.2196, -0.3792, 0.7671,
                                           -0.5880, 0.3486, 0.6603,
                                           -1.1925, 0.6984, -1.4097});
    return m;
}
}  // namespace

TEST_CASE("004 vocabulary dc and sentence_int", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1"}));
    // {'Life': 0, 'dessert': 1, 'eat': 2, 'first': 3, 'is': 4, 'short': 5}; tensor([0, 4, 5, 2, 1, 3])
    CHECK(r.tokens.tokens == std::vector<std::string>{"Life", "is", "short", "eat", "dessert", "first"});
    CHECK(r.tokens.ids == std::vector<int64_t>{0, 4, 5, 2, 1, 3});
}

TEST_CASE("004 embedded_sentence from nn.Embedding(50_000, 3) (seed 123)", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1"}));
    CHECK(r.embedding == "random");
    check_printed(r.trace.model.at("inputs"), embedded_sentence());
}

TEST_CASE("004 W_query = torch.rand(3, 3) (seed 123)", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1", "--d-out", "3"}));
    check_printed(head(r).at("W_query"), printed(3, 3, {0.2961, 0.5166, 0.2517,
                                                        0.6886, 0.0740, 0.8665,
                                                        0.1366, 0.1025, 0.1841}));
}

TEST_CASE("004 x_2 and query_2", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1", "--d-out", "3"}));
    check_printed(r.trace.model.at("inputs").row(1), printed_row({0.1794, 1.8951, 0.4954}));
    check_printed(head(r).at("queries").row(1), printed_row({1.4257, 0.2836, 1.7785}));
}

TEST_CASE("004 keys = embedded_sentence @ W_key", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1", "--d-out", "3"}));
    check_printed(head(r).at("keys"), printed(6, 3, {0.1097, 0.0354, -0.0756,
                                                     0.4727, 0.4880, 1.1328,
                                                     -0.2202, -0.0513, -0.6837,
                                                     0.1199, -0.0528, 0.3638,
                                                     -0.1355, -0.0385, 0.2526,
                                                     -1.3798, -0.4058, -1.7648}));
}

TEST_CASE("004 values = embedded_sentence @ W_value", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1", "--d-out", "3"}));
    check_printed(head(r).at("values"), printed(6, 3, {-0.0599, -0.0902, 0.0290,
                                                       1.3286, 1.6514, 2.1528,
                                                       -0.2229, -0.5431, -0.1291,
                                                       -0.0983, 0.1185, -0.3472,
                                                       0.1634, 0.2683, 0.0239,
                                                       -0.4284, -1.2711, -0.7229}));
}

TEST_CASE("004 omega_2 = query_2 @ keys.T", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1", "--d-out", "3"}));
    check_printed(head(r).at("scores").row(1), printed_row({0.0320, 2.8271, -1.5446, 0.8031, 0.2452, -5.2210}));
}

TEST_CASE("004 attention_weights_2 = softmax(omega_2 / d_k**0.5)", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1", "--d-out", "3"}));
    check_printed(head(r).at("weights").row(1), printed_row({0.1091, 0.5480, 0.0439, 0.1703, 0.1234, 0.0053}));
}

TEST_CASE("004 context_vector_2 = attention_weights_2 @ values", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1", "--d-out", "3"}));
    check_printed(head(r).at("context").row(1), printed_row({0.7129, 0.9178, 1.1172}));
}

TEST_CASE("004 SelfAttention(3, 3, 4) output and embedded_sentence", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1", "--d-out", "3", "--d-out-v", "4"}));
    check_printed(stacked_output(r), printed(6, 4, {0.1013, 0.0589, -0.2602, 0.1070,
                                                    0.7576, 1.3422, 0.6583, 0.6907,
                                                    0.0716, -0.0084, -0.3268, 0.0825,
                                                    0.0368, -0.0903, -0.4136, 0.0538,
                                                    0.2005, 0.2913, -0.0318, 0.1813,
                                                    0.0767, 0.0212, -0.2814, 0.0765}));
    check_printed(r.trace.model.at("inputs"), embedded_sentence());
}

TEST_CASE("004 SelfAttention(3, 2, 1) output", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "self-v1", "--d-out", "2", "--d-out-v", "1"}));
    check_printed(stacked_output(r), printed(6, 1, {-0.0185, 0.4003, -0.1103, 0.0668, 0.1180, -0.1827}));
}

TEST_CASE("004 MultiHeadAttentionWrapper of 4 SelfAttention(3, 2, 1) heads", "[seeds]") {
    const attn::Run r =
        run(with(kLife, {"--variant", "self-v1", "--d-out", "2", "--d-out-v", "1", "--heads", "4"}));
    REQUIRE(r.trace.heads.size() == 4);
    check_printed(stacked_output(r), printed(6, 4, {-0.0185, 0.0170, 0.1999, -0.0860,
                                                    0.4003, 1.7137, 1.3981, 1.0497,
                                                    -0.1103, -0.1609, 0.0079, -0.2416,
                                                    0.0668, 0.3534, 0.2322, 0.1008,
                                                    0.1180, 0.6949, 0.3157, 0.2807,
                                                    -0.1827, -0.2060, -0.2393, -0.3167}));
}

TEST_CASE("004 CrossAttention(3, 2, 4) output with second_input = torch.rand(8, 3)", "[seeds]") {
    const attn::Run r = run(with(kLife, {"--variant", "cross", "--d-out", "2", "--d-out-v", "4"}));
    CHECK(r.trace.model.at("inputs2").rows() == 8);  // Second input shape: torch.Size([8, 3])
    check_printed(stacked_output(r), printed(6, 4, {0.4231, 0.8665, 0.6503, 1.0042,
                                                    0.4874, 0.9718, 0.7359, 1.1353,
                                                    0.4054, 0.8359, 0.6258, 0.9667,
                                                    0.4357, 0.8886, 0.6678, 1.0311,
                                                    0.4429, 0.9006, 0.6775, 1.0460,
                                                    0.3860, 0.8021, 0.5985, 0.9250}));
}

namespace {
const Matrix& causal_004_scores() {
    static const Matrix m = printed(6, 6, {0.0613, -0.3491, 0.1443, -0.0437, -0.1303, 0.1076,
                                           -0.6004, 3.4707, -1.5023, 0.4991, 1.2903, -1.3374,
                                           0.2432, -1.3934, 0.5869, -0.1851, -0.5191, 0.4730,
                                           -0.0794, 0.4487, -0.1807, 0.0518, 0.1677, -0.1197,
                                           -0.1510, 0.8626, -0.3597, 0.1112, 0.3216, -0.2787,
                                           0.4344, -2.5037, 1.0740, -0.3509, -0.9315, 0.9265});
    return m;
}
const std::vector<std::string> kLifeCausal = {"--text", "Life is short, eat dessert first", "--variant", "self-v1",
                                              "--d-out", "2", "--d-out-v", "4"};
}  // namespace

TEST_CASE("004 causal section: attn_scores = queries @ keys.T", "[seeds]") {
    const attn::Run r = run(kLifeCausal);
    check_printed(head(r).at("scores"), causal_004_scores());
}

TEST_CASE("004 causal section: attn_weights before masking", "[seeds]") {
    const attn::Run r = run(kLifeCausal);
    check_printed(head(r).at("weights"), printed(6, 6, {0.1772, 0.1326, 0.1879, 0.1645, 0.1547, 0.1831,
                                                        0.0386, 0.6870, 0.0204, 0.0840, 0.1470, 0.0229,
                                                        0.1965, 0.0618, 0.2506, 0.1452, 0.1146, 0.2312,
                                                        0.1505, 0.2187, 0.1401, 0.1651, 0.1793, 0.1463,
                                                        0.1347, 0.2758, 0.1162, 0.1621, 0.1881, 0.1231,
                                                        0.1973, 0.0247, 0.3102, 0.1132, 0.0751, 0.2794}));
}

TEST_CASE("004 causal section: masked scores", "[seeds]") {
    const attn::Run r = run(with(kLifeCausal, {"--causal"}));
    check_printed(unscaled_masked(head(r)), printed(6, 6, {0.0613, -kInf, -kInf, -kInf, -kInf, -kInf,
                                                           -0.6004, 3.4707, -kInf, -kInf, -kInf, -kInf,
                                                           0.2432, -1.3934, 0.5869, -kInf, -kInf, -kInf,
                                                           -0.0794, 0.4487, -0.1807, 0.0518, -kInf, -kInf,
                                                           -0.1510, 0.8626, -0.3597, 0.1112, 0.3216, -kInf,
                                                           0.4344, -2.5037, 1.0740, -0.3509, -0.9315, 0.9265}));
}

TEST_CASE("004 causal section: masked attention weights", "[seeds]") {
    const attn::Run r = run(with(kLifeCausal, {"--causal"}));
    check_printed(head(r).at("weights"), printed(6, 6, {1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000,
                                                        0.0532, 0.9468, 0.0000, 0.0000, 0.0000, 0.0000,
                                                        0.3862, 0.1214, 0.4924, 0.0000, 0.0000, 0.0000,
                                                        0.2232, 0.3242, 0.2078, 0.2449, 0.0000, 0.0000,
                                                        0.1536, 0.3145, 0.1325, 0.1849, 0.2145, 0.0000,
                                                        0.1973, 0.0247, 0.3102, 0.1132, 0.0751, 0.2794}));
}
