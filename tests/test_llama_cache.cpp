// The Llama-family KV cache (core/model/llama_cache.h): a token appended through the
// cache gives the full forward's last logits and its last row of every head's weights,
// from a prefilled cache and from an empty one, on the golden checkpoints (llama3 with
// scaled RoPE in BF16, qwen2 with biases, qwen3 with q/k norms and one key/value head).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model/llama_cache.h"
#include "run/model_run.h"

namespace {

const std::string kModels = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/llama/";

float max_abs(const attn::RowVector& v) { return v.cwiseAbs().maxCoeff(); }

}  // namespace

TEST_CASE("a token appended through the Llama KV cache is the full forward's last row", "[llama]") {
    for (const char* name : {"llama3-scaled-tied-bf16", "qwen2-bias-f16-shards", "qwen3-qknorm-mqa-f32"}) {
        INFO(name);
        const attn::LlamaCheckpoint model(kModels + name);
        const attn::LlamaConfig& c = model.config();
        const std::vector<int64_t> ids{5, 17, 3, 42, 8, 61, 2, 30, 11};
        const attn::ModelTrace full = attn::llama_forward(model, ids);
        const float scale = max_abs(full.logits.bottomRows(1));
        for (const size_t prefilled : {size_t{0}, size_t{4}, size_t{8}}) {
            INFO("prefilled " << prefilled << " tokens");
            attn::LlamaCache cache;
            attn::RowVector logits;
            if (prefilled > 0)
                cache = attn::llama_prefill(model, std::vector<int64_t>(ids.begin(), ids.begin() + static_cast<long>(prefilled)), logits);
            attn::LlamaTokenStep step;
            for (size_t i = prefilled; i < ids.size(); ++i) step = attn::llama_append_token(model, cache, ids[i]);
            CHECK(cache.ids == ids);
            CHECK((step.logits - full.logits.bottomRows(1)).cwiseAbs().maxCoeff() <= 1e-5f * scale);
            REQUIRE(step.weights.size() == static_cast<size_t>(c.layers));
            const auto T = static_cast<Eigen::Index>(ids.size());
            for (int l = 0; l < c.layers; ++l)
                for (int h = 0; h < c.heads; ++h) {
                    INFO("layer " << l << " head " << h);
                    const attn::RowVector& row = step.weights[static_cast<size_t>(l)][static_cast<size_t>(h)];
                    const attn::Matrix& w = full.blocks[static_cast<size_t>(l)].attention.heads[static_cast<size_t>(h)].at("weights");
                    REQUIRE(row.size() == T);
                    CHECK((row - w.row(T - 1)).cwiseAbs().maxCoeff() <= 1e-6f);
                }
            // The cache holds the key/value heads only: kv_heads * head_dim keys and values a token a layer.
            CHECK(cache.bytes() == int64_t{c.layers} * T * 2 * c.kv_heads * c.head_dim * 4);
        }
    }
}

TEST_CASE("a token the Llama cache cannot take is refused and the cache is unchanged", "[llama]") {
    const attn::LlamaCheckpoint model(kModels + "llama-plain-f32");
    attn::RowVector logits;
    attn::LlamaCache cache = attn::llama_prefill(model, {1, 2, 3}, logits);
    const int64_t bytes = cache.bytes();
    CHECK_THROWS_AS(attn::llama_append_token(model, cache, model.config().vocab_size), attn::ModelFileError);
    CHECK_THROWS_AS(attn::llama_append_token(model, cache, -1), attn::ModelFileError);
    CHECK(cache.ids == std::vector<int64_t>{1, 2, 3});
    CHECK(cache.bytes() == bytes);
    // The positions run out at max_position_embeddings.
    std::vector<int64_t> many(static_cast<size_t>(model.config().max_positions), 1);
    attn::LlamaCache full = attn::llama_prefill(model, many, logits);
    CHECK_THROWS_WITH(attn::llama_append_token(model, full, 1), Catch::Contains("at most"));
    CHECK(full.ids.size() == many.size());
}

TEST_CASE("a Llama-family model generates through the cache the tokens repeated full forwards give", "[llama]") {
    const std::string dir = kModels + "qwen2-bias-f16-shards";
    const std::vector<int64_t> ids{5, 17, 3, 42};
    for (const double temperature : {0.0, 1.3}) {
        INFO("temperature " << temperature);
        attn::Sampling how;
        how.temperature = temperature;
        how.top_k = temperature > 0 ? std::optional<int64_t>(12) : std::nullopt;
        how.seed = 9;
        attn::Settings s;
        s.model = dir;
        s.ids = "5,17,3,42";
        s.generate = 7;
        s.sampling = how;
        const attn::ModelRun run = attn::run_model(s, attn::load_model(dir, 0), attn::default_budget());
        REQUIRE(run.generated.size() == 7);
        // Chapter 5's generate without a cache: a full forward of everything so far for
        // each token, the sampler drawing from its last logits.
        const attn::LlamaCheckpoint model(dir);
        attn::TokenSampler sampler(how);
        std::vector<int64_t> all = ids;
        for (int n = 0; n < 7; ++n) all.push_back(sampler.next(attn::llama_forward(model, all).logits.bottomRows(1)));
        CHECK(std::vector<int64_t>(all.begin() + 4, all.end()) == run.generated);
        CHECK(run.next_tokens.front().id == (temperature > 0 ? run.next_tokens.front().id : run.generated.front()));
    }
    attn::Settings past;
    past.model = dir;
    past.ids = "5,17,3,42";
    past.generate = 61;  // 4 + 61 positions of its 64
    CHECK_THROWS_WITH(attn::run_model(past, attn::load_model(dir, 0), attn::default_budget()),
                      "4 tokens and 61 generated are more than the model's max_position_embeddings (64)");
}
