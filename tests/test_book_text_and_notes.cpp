// Every tensor the seed documents print, reproduced to the precision they print it.
// The expected numbers are copied by hand from /work/shared/seeds/*: they are what
// PyTorch printed there, not values generated here. This file: seeds 001 to 004, a
// learner's notes (001), the book's text (002, 003) and the self-, multi-head and
// cross-attention notebook (004).
#include "seed_checks.h"

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
