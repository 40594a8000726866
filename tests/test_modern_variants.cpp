// Today's variants (gqa, swa, mla, RoPE), the KV cache walk and the online softmax: the
// properties that define them, beyond the golden comparison with PyTorch
// (test_golden.cpp, tests/golden/modern_golden.json).
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/cache_sizes.h"
#include "attention/head_forward.h"
#include "attention/kv_cache_walk.h"
#include "attention/online_softmax.h"
#include "run/pipeline.h"
#include "attention/rope.h"
#include "settings/settings.h"

namespace {

attn::Settings settings(const std::vector<std::string>& args) { return attn::parse_settings(args).settings; }
attn::Run run(const std::vector<std::string>& args) { return attn::compute(settings(args)); }

float max_abs(const attn::Matrix& m) { return m.size() ? m.cwiseAbs().maxCoeff() : 0.0f; }

const std::vector<std::string> kLong = {"--text", "the cat sat on a warm mat while rain fell over quiet hills and old rivers ran",
                                        "--d-in", "8", "--vocab-size", "50"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace

TEST_CASE("a window as long as the text is causal multi-head attention", "[modern]") {
    // MultiHeadAttentionWithSWA builds MultiHeadAttention's layers: same seed, same weights.
    const attn::Run mha = run(with(kLong, {"--variant", "mha", "--heads", "2", "--d-out", "4", "--dropout", "0.3"}));
    for (const char* W : {"17", "1000"}) {  // the text has 17 tokens
        const attn::Run swa = run(with(kLong, {"--variant", "swa", "--heads", "2", "--d-out", "4", "--dropout", "0.3", "--window", W}));
        CHECK(max_abs(swa.trace.output[0] - mha.trace.output[0]) == 0.0f);
    }
    const attn::Run narrow = run(with(kLong, {"--variant", "swa", "--heads", "2", "--d-out", "4", "--window", "3"}));
    const attn::Matrix& w = narrow.trace.heads[1].at("weights");
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
        INFO("row " << i);
        CHECK(std::abs(w.row(i).sum() - 1.0f) < 1e-6f);
        for (Eigen::Index j = 0; j < w.cols(); ++j)
            if (i - j < 0 || i - j >= 3) CHECK(w(i, j) == 0.0f);
    }
}

TEST_CASE("grouped heads share their group's keys and values", "[modern]") {
    const attn::Run mqa = run(with(kLong, {"--variant", "gqa", "--heads", "4", "--kv-groups", "1", "--d-out", "8"}));
    const attn::Run gqa = run(with(kLong, {"--variant", "gqa", "--heads", "4", "--kv-groups", "2", "--d-out", "8"}));
    for (int h = 1; h < 4; ++h) CHECK(mqa.trace.heads[h].at("keys") == mqa.trace.heads[0].at("keys"));
    CHECK(gqa.trace.head_groups == std::vector<int>{0, 0, 1, 1});
    CHECK(gqa.trace.heads[1].at("values") == gqa.trace.heads[0].at("values"));
    CHECK(gqa.trace.heads[2].at("values") != gqa.trace.heads[0].at("values"));
    CHECK(gqa.trace.heads[2].at("queries") != gqa.trace.heads[3].at("queries"));  // queries stay per head
    REQUIRE(gqa.trace.kv_cache);
    CHECK(gqa.trace.kv_cache->bytes_per_token == 2 * 2 * 2 * 4);  // k and v, 2 groups of 2 floats
    CHECK(gqa.trace.kv_cache->mha_bytes_per_token == 2 * 8 * 4);
}

TEST_CASE("RoPE: a score depends on how far apart two positions are, not where", "[modern]") {
    // The same query and key vector at every position: with RoPE, score(i, j) is a
    // function of i - j alone (a Toeplitz matrix), and rotation keeps lengths.
    const int hd = 8;
    attn::Matrix same(10, hd);
    for (int i = 0; i < 10; ++i)
        for (int j = 0; j < hd; ++j) same(i, j) = 0.3f + 0.1f * static_cast<float>(j) - 0.05f * static_cast<float>(j * j % 5);
    const attn::RopeTables rope = attn::rope_tables(10, hd, 10000);
    const attn::Matrix rotated = attn::apply_rope(same, rope);
    const attn::Matrix scores = rotated * rotated.transpose();
    for (int i = 1; i < 10; ++i)
        for (int j = 1; j < 10; ++j) CHECK(std::abs(scores(i, j) - scores(i - 1, j - 1)) < 1e-5f);
    for (int i = 0; i < 10; ++i) CHECK(std::abs(rotated.row(i).norm() - same.row(i).norm()) < 1e-5f);
    CHECK(max_abs(rotated.row(0) - same.row(0)) == 0.0f);  // position 0 turns by 0
    CHECK(rope.angles(3, 0) == 3.0f);                       // the first frequency is 1 radian per position
    CHECK_THROWS_WITH(attn::rope_tables(4, 3, 10000), Catch::Contains("must be even"));
}

TEST_CASE("the KV cache walk gives the full forward's output, token by token", "[modern]") {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--variant", "mha", "--heads", "2", "--d-out", "4", "--qkv-bias"},
             {"--variant", "gqa", "--heads", "4", "--kv-groups", "2", "--d-out", "8", "--rope"},
             {"--variant", "gqa", "--heads", "2", "--kv-groups", "1", "--d-out", "4", "--rope", "--rope-base", "500000"},
             {"--variant", "swa", "--heads", "2", "--d-out", "4", "--window", "4"},
             {"--variant", "mla", "--heads", "2", "--d-out", "8", "--latent-dim", "3", "--qkv-bias"},
             {"--variant", "alibi", "--heads", "3", "--d-out", "6"}}) {
        INFO(Catch::Detail::stringify(args));
        const attn::Settings s = settings(with(kLong, args));
        const attn::Run full = attn::compute(s);
        const attn::Matrix& x = full.trace.model.at("inputs");
        const attn::AttentionModule m = attn::build_attention(s.d_in, s.attention);
        const int heads = s.attention.heads;
        for (long t = 0; t < x.rows(); ++t) {
            const attn::KvCacheStep step = attn::kv_cache_step(m, x, t, heads - 1);
            INFO("step " << t);
            const attn::Matrix expected = full.trace.output[0].middleRows(t, 1);
            CHECK(max_abs(step.output - expected) <= 1e-6f * std::max(1.0f, max_abs(full.trace.output[0])));
            CHECK(step.weights.cols() == step.cached);
            CHECK(std::abs(step.weights.sum() - 1.0f) < 1e-6f);
            // The new query's weights are the full forward's row over the keys the cache holds.
            const attn::Matrix& w = full.trace.heads[heads - 1].at("weights");
            CHECK(max_abs(step.weights - w.block(t, step.first_cached, 1, step.cached)) < 1e-6f);
            CHECK(step.cache_bytes == full.trace.kv_cache.value_or(attn::KvCacheSize{32, 0, 32}).bytes_per_token * step.cached);
        }
    }
    const attn::Settings swa = settings(with(kLong, {"--variant", "swa", "--window", "4"}));
    const attn::AttentionModule m = attn::build_attention(swa.d_in, swa.attention);
    const attn::Matrix x = attn::compute(swa).trace.model.at("inputs");
    const attn::KvCacheStep late = attn::kv_cache_step(m, x, 9, 0);
    CHECK(late.cached == 4);  // the oldest dropped
    CHECK(late.first_cached == 6);
    CHECK(late.full_cache_bytes == 2 * 2 * 4 * 10);
    CHECK_THROWS_WITH(attn::kv_cache_step(m, x, 99, 0), Catch::Contains("past the text"));
    const attn::Settings v1 = settings({"--variant", "self-v1"});
    CHECK_THROWS_WITH(attn::kv_cache_step(attn::build_attention(3, v1.attention), x, 0, 0), Catch::Contains("without a KV cache"));
}

TEST_CASE("tiled online softmax ends at the ordinary softmax and context", "[modern]") {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--variant", "causal", "--d-out", "4"}, {"--variant", "self-v2", "--d-out", "3"},
             {"--variant", "swa", "--heads", "2", "--d-out", "4", "--window", "3"},
             {"--variant", "gqa", "--heads", "2", "--d-out", "4", "--rope"},
             {"--variant", "alibi", "--heads", "3", "--d-out", "6"}}) {
        INFO(Catch::Detail::stringify(args));
        const attn::Run r = run(with(kLong, args));
        const attn::HeadTrace& h = r.trace.heads[0];
        const attn::OnlineSoftmaxInput in = attn::online_softmax_input(r.trace, 0);
        CHECK(in.bias.size() == (h.find("position_bias") ? in.mask.size() : 0));
        for (const int tile : {1, 3, 4, 16, 100}) {
            INFO("tile " << tile);
            const attn::OnlineSoftmaxState done = attn::online_softmax(in, tile, 1 << 20);
            CHECK(done.tiles_done == done.tiles_total);
            CHECK(max_abs(done.weights_so_far - h.at("weights")) <= 1e-6f);
            CHECK(max_abs(done.context_so_far - h.at("context")) <= 1e-6f * std::max(1.0f, max_abs(h.at("context"))));
            // Part way, each row's weights over the keys seen so far sum to 1.
            const attn::OnlineSoftmaxState half = attn::online_softmax(in, tile, done.tiles_total / 2);
            for (Eigen::Index i = 0; i < half.weights_so_far.rows(); ++i)
                if (half.running_sum(i, 0) > 0.0f) CHECK(std::abs(half.weights_so_far.row(i).sum() - 1.0f) < 1e-5f);
        }
    }
    CHECK_THROWS(attn::online_softmax(attn::OnlineSoftmaxInput{attn::Matrix::Ones(2, 2), attn::Matrix::Ones(2, 2),
                                                               attn::Matrix::Ones(2, 2), {}, {}, 1.0f},
                                      0, 1));
}

TEST_CASE("KV cache sizes for a model a user picks", "[modern]") {
    attn::CacheModelSize llama = attn::cache_model_presets()[2];
    REQUIRE(std::string(llama.name) == "Llama 3 8B");
    std::string error;
    const auto rows = attn::kv_cache_table(llama, error);
    REQUIRE(rows.size() == 5);
    // 2 (k, v) x 32 layers x 8192 tokens x 32 heads x 128 x 2 bytes = 4.29 GB; 8 groups: a quarter.
    CHECK(rows[0].bytes == 2.0 * 32 * 8192 * 32 * 128 * 2);
    CHECK(rows[1].vs_mha == 0.25);
    CHECK(rows[2].vs_mha == 1.0 / 32);
    CHECK(attn::format_bytes(rows[0].bytes) == "4.29 GB");
    llama.kv_groups = 5;
    CHECK(attn::kv_cache_table(llama, error).empty());
    CHECK(error == "heads (32) must be divisible by kv groups (5)");
}

TEST_CASE("the mask hides key j from query i exactly when j > i (causal) or i - j >= window", "[modern]") {
    // Its definition, element by element, against attention_mask's row fills; with more
    // queries than keys and the other way round, a window wider than the text, none.
    for (const Eigen::Index T : {1, 5, 9})
        for (const Eigen::Index S : {1, 4, 9, 12})
            for (const bool causal : {false, true})
                for (const Eigen::Index window : {0, 1, 3, 20}) {
                    const attn::Matrix mask = attn::attention_mask(T, S, causal, window);
                    for (Eigen::Index i = 0; i < T; ++i)
                        for (Eigen::Index j = 0; j < S; ++j) {
                            const bool hidden = (causal && j > i) || (window > 0 && i - j >= window);
                            INFO("T " << T << " S " << S << " causal " << causal << " window " << window << " (" << i
                                      << ", " << j << ")");
                            REQUIRE(mask(i, j) == (hidden ? 1.0f : 0.0f));
                        }
                }
}
