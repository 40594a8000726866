// Every tensor the seed documents print, reproduced to the precision they print it.
// The expected numbers are copied by hand from /work/shared/seeds/*: they are what
// PyTorch printed there, not values generated here. This file: seed 000, the book's chapter 3 notebook.
#include "seed_checks.h"


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
    Matrix both(12, 2);
    both << causal_123_output(), causal_123_output();  // the batch holds the sentence twice
    check_printed(stacked_output(r), both);
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

