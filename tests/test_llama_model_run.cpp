// A Llama-family model as the app runs it (run_model, the model view's ModelRun) against
// the same PyTorch golden data as the forward itself (tests/golden/llama_golden.json,
// written by make_llama_golden.py): the app path must not change a number. Each golden
// folder is copied with a one-character tokenizer.json (llama_fixture.h), so that a text
// of the ids' characters tokenizes back to exactly the golden ids.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/llama_forward.h"
#include "run/model_run.h"
#include "run/run_cache_size.h"
#include "llama_fixture.h"
#include "stage_mismatch.h"

using nlohmann::json;
using attn::test::mismatch;

namespace {

const std::string kGolden = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/";

struct ModelCopy {
    std::string dir;
    ModelCopy(const std::string& name, bool with_tokenizer) {
        dir = std::filesystem::temp_directory_path() / ("attnscope-llama-run-" + std::to_string(::getpid()) + (with_tokenizer ? "" : "-bare"));
        attn::test::copy_golden_llama(name, dir, with_tokenizer);
    }
    ~ModelCopy() { std::filesystem::remove_all(dir); }
};

using attn::test::text_of;

}  // namespace

TEST_CASE("a Llama-family model as the app runs it: torch's weights, the detail head's stages, the next tokens",
          "[gpt][llama]") {
    const json doc = json::parse(std::ifstream(kGolden + "llama_golden.json"));
    REQUIRE(doc["models"].size() == 4);
    for (const json& model : doc["models"]) {
        const std::string name = model["name"];
        INFO(name);
        const ModelCopy copy(name, true);
        const attn::LoadedModel loaded = attn::load_model(copy.dir, 0);
        REQUIRE(loaded.model->llama_weights());
        const attn::ModelShape shape = attn::model_shape(loaded);
        const attn::LlamaConfig& c = loaded.model->llama_weights()->config();
        CHECK(shape.layers == c.layers);
        CHECK(shape.kv_heads == c.kv_heads);
        const json& of = model["stages_of"];
        attn::Settings s;
        const std::vector<int64_t> ids = model["token_ids"];
        s.text = text_of(ids);
        s.model = copy.dir;
        s.layer = of["layer"].get<int>();
        s.head = of["head"].get<int>();
        const attn::ModelRun run = attn::run_model(s, loaded, attn::budget_for(s), true);
        REQUIRE(run.tokens.ids == ids);
        REQUIRE(run.trace->blocks.size() == model["weights"].size());
        for (size_t layer = 0; layer < run.trace->blocks.size(); ++layer) {
            const attn::Trace& t = run.trace->blocks[layer].attention;
            REQUIRE(t.heads.size() == model["weights"][layer].size());
            for (size_t h = 0; h < t.heads.size(); ++h) {
                INFO("layer " << layer << " head " << h);
                CHECK(t.head_groups[h] == static_cast<int>(h) / c.group_size());
                CHECK(mismatch("weights", t.heads[h].at("weights"), model["weights"][layer][h]) == "");
            }
        }
        // The detail head keeps every stage the forward records, each torch's.
        const attn::HeadTrace& head = run.trace->blocks[of["layer"].get<size_t>()].attention.heads[of["head"].get<size_t>()];
        for (const auto& [stage, expected] : of["stages"].items()) {
            INFO("stage " << stage);
            REQUIRE(head.find(stage));
            CHECK(mismatch(stage, head.at(stage), expected) == "");
        }
        json top = json::array();
        for (size_t i = 0; i < model["top"]["ids"].size(); ++i)
            top.push_back({{"id", model["top"]["ids"][i]}, {"prob", model["top"]["probs"][i]}});
        const auto last = static_cast<Eigen::Index>(ids.size()) - 1;
        CHECK(attn::test::next_token_mismatch(attn::run_logits_at(run, last), top) == "");
        CHECK(run.next_position == last);
        CHECK(run.next_tokens.front().id == model["top"]["ids"][0].get<int64_t>());
        CHECK(run.head_scores.size() == static_cast<size_t>(c.layers));
        // Another position's next tokens: one row of the output head, as the forward's own.
        const std::optional<attn::ModelRun> picked = attn::with_next_at(run, 2);
        REQUIRE(picked);
        const attn::LlamaCheckpoint& weights = *loaded.model->llama_weights();
        const attn::ModelTrace forward = attn::llama_forward(weights, ids);
        CHECK(picked->next_tokens.front().id == attn::top_next_tokens(attn::llama_logits_at(weights, forward, 2), 1)[0].id);
        // The run keeps its KV cache: the key/value heads' rotated keys and values.
        REQUIRE(run.cache);
        CHECK(run.cache->ids() == ids);
        CHECK(attn::run_cache_size(run).bytes() == run.cache->bytes());
        CHECK(run.cache->bytes() == int64_t{c.layers} * c.kv_heads * c.head_dim * 9 * 2 * 4);
        CHECK(attn::model_token_text(loaded, 0) == "!");
    }
}

TEST_CASE("a Llama-family model's run in the app: generated tokens in view, what it refuses", "[llama]") {
    const json doc = json::parse(std::ifstream(kGolden + "llama_golden.json"));
    const json& model = doc["models"][0];
    const ModelCopy copy(model["name"].get<std::string>(), true);
    const attn::LoadedModel loaded = attn::load_model(copy.dir, 0);
    attn::Settings s;
    s.text = text_of(model["token_ids"].get<std::vector<int64_t>>());
    s.model = copy.dir;
    s.generate = 3;
    const attn::ModelRun run = attn::run_model(s, loaded, attn::budget_for(s), true);
    REQUIRE(run.generated.size() == 3);
    // Greedy: the first generated token is the text's most probable next token, and the
    // view covers the text and the generated tokens.
    CHECK(run.generated[0] == model["top"]["ids"][0].get<int64_t>());
    CHECK(run.tokens.ids.size() == model["token_ids"].size() + 3);
    CHECK(run.trace->blocks[0].attention.heads[0].at("weights").rows() == static_cast<Eigen::Index>(run.tokens.ids.size()));

    s.generate = 0;
    s.text = std::string(static_cast<size_t>(attn::model_shape(loaded).context_length) + 1, 'a');
    CHECK_THROWS_WITH(attn::run_model(s, loaded, attn::budget_for(s), true),
                      Catch::Contains("the model reads at most 64 (its max_position_embeddings)"));
    s.text = "abc";
    s.layer = 9;
    s.head = 0;
    CHECK_THROWS_WITH(attn::run_model(s, loaded, attn::budget_for(s), true), Catch::Contains("--layer 9: the model has"));

    const ModelCopy bare(model["name"].get<std::string>(), false);
    const attn::LoadedModel untokenized = attn::load_model(bare.dir, 0);
    s.layer.reset();
    s.head.reset();
    CHECK_THROWS_WITH(attn::run_model(s, untokenized, attn::budget_for(s), true),
                      Catch::Contains("has no tokenizer.json attnscope reads"));
}

namespace {

attn::ModelRun run_llama_text(const attn::LoadedModel& model, const std::string& text, int generate = 0,
                              const attn::Sampling& sampling = {}, std::optional<int> next_at = std::nullopt) {
    attn::Settings s;
    s.model = model.name;
    s.text = text;
    s.generate = generate;
    s.sampling = sampling;
    s.next_at = next_at;
    return attn::run_model(s, model, attn::budget_for(s), true);  // the app's: generated tokens in view
}

// Largest |a - b| relative to b's largest |value| (the stage's scale).
double relative_gap(const attn::Matrix& a, const attn::Matrix& b) {
    REQUIRE(a.rows() == b.rows());
    REQUIRE(a.cols() == b.cols());
    return (a - b).cwiseAbs().maxCoeff() / std::max(1e-30f, b.cwiseAbs().maxCoeff());
}

// Ids equal; probabilities within 1e-5 of each other, relative.
void check_same_next_tokens(const std::vector<attn::TokenProbability>& ours,
                            const std::vector<attn::TokenProbability>& full) {
    REQUIRE(ours.size() == full.size());
    for (size_t i = 0; i < full.size(); ++i) {
        INFO("rank " << i);
        CHECK(ours[i].id == full[i].id);
        CHECK(std::abs(ours[i].prob - full[i].prob) <= 1e-5 * full[i].prob);
        CHECK(std::abs(ours[i].drawn - full[i].drawn) <= 1e-5 * std::max(full[i].drawn, 1e-30f));
    }
}

// An extended run against a full run of the same tokens: every query head's weights and
// its key/value head's keys and values, the head scores, the next tokens, the cache.
void check_same_run(const attn::ModelRun& extended, const attn::ModelRun& full) {
    CHECK(extended.extended);
    REQUIRE(extended.tokens.ids == full.tokens.ids);
    CHECK(extended.tokens.tokens == full.tokens.tokens);
    CHECK(extended.generated == full.generated);
    REQUIRE(extended.trace->blocks.size() == full.trace->blocks.size());
    for (size_t l = 0; l < full.trace->blocks.size(); ++l) {
        const attn::Trace& ours = extended.trace->blocks[l].attention;
        const attn::Trace& theirs = full.trace->blocks[l].attention;
        CHECK(ours.head_groups == theirs.head_groups);
        REQUIRE(ours.heads.size() == theirs.heads.size());
        for (size_t h = 0; h < theirs.heads.size(); ++h) {
            INFO("layer " << l << " head " << h);
            for (const char* stage : {"weights", "keys_rotated", "values"})
                CHECK(relative_gap(ours.heads[h].at(stage), theirs.heads[h].at(stage)) < 1e-5);
            CHECK(std::abs(extended.head_scores[l][h].induction - full.head_scores[l][h].induction) < 1e-5);
        }
    }
    CHECK(extended.next_position == full.next_position);
    check_same_next_tokens(extended.next_tokens, full.next_tokens);
    REQUIRE(extended.cache);
    CHECK(extended.cache->ids() == full.cache->ids());
    CHECK(attn::run_cache_size(extended).bytes() == full.cache->bytes());
    const attn::ModelShape shape = attn::model_shape(full.model);
    for (size_t l = 0; l < static_cast<size_t>(shape.layers); ++l)
        for (size_t h = 0; h < static_cast<size_t>(shape.heads); ++h) {  // each query head's key/value head's
            attn::HeadTrace ours, theirs;
            extended.cache->add_keys_values(l, h, ours);
            full.cache->add_keys_values(l, h, theirs);
            for (const char* stage : {"keys_rotated", "values"})
                CHECK(relative_gap(ours.at(stage), theirs.at(stage)) < 1e-5);
        }
}

}  // namespace

TEST_CASE("a Llama-family run extended from its KV cache gives the full run of the longer text", "[gpt][llama]") {
    const json doc = json::parse(std::ifstream(kGolden + "llama_golden.json"));
    for (const json& model : doc["models"]) {
        const std::string name = model["name"];
        INFO(name);
        const ModelCopy copy(name, true);
        const attn::LoadedModel loaded = attn::load_model(copy.dir, 0);
        const std::vector<int64_t> ids = model["token_ids"];
        const std::string text = text_of(ids);
        const attn::LanguageModel& tokenizer = *loaded.model;  // its tokenizer.json: encode
        // Typed: four tokens more, in one extension, then one more.
        const attn::ModelRun shorter = run_llama_text(loaded, text.substr(0, 5));
        const std::optional<attn::ModelRun> typed = attn::extend_model_run(shorter, tokenizer.encode(text));
        REQUIRE(typed);
        check_same_run(*typed, run_llama_text(loaded, text));
        const std::optional<attn::ModelRun> again = attn::extend_model_run(*typed, tokenizer.encode(text + "!"));
        REQUIRE(again);
        check_same_run(*again, run_llama_text(loaded, text + "!"));
        // Edited: the last characters changed (from the extended run), and cut short (from a
        // full run): the rows before the edit are reused.
        for (const std::string& edited : {text.substr(0, text.size() - 1) + "x", text.substr(0, text.size() - 2) + "q!"}) {
            INFO(edited);
            const std::optional<attn::ModelRun> ours = attn::extend_model_run(*typed, tokenizer.encode(edited));
            REQUIRE(ours);
            check_same_run(*ours, run_llama_text(loaded, edited));
        }
        const std::optional<attn::ModelRun> cut =
            attn::extend_model_run(run_llama_text(loaded, text), tokenizer.encode(text.substr(0, 5)));
        REQUIRE(cut);
        check_same_run(*cut, shorter);
        // Generated, greedy and sampled, one run a token as the app's Generate: the tokens,
        // weights and next tokens of one run generating them all in view, and the random
        // stream where that run leaves it.
        attn::Sampling sampled;
        sampled.temperature = 1.5;
        sampled.top_k = 20;
        sampled.seed = 7;
        for (const attn::Sampling& how : {attn::Sampling{}, sampled}) {
            INFO("temperature " << how.temperature);
            std::optional<attn::ModelRun> more = run_llama_text(loaded, text, 0, how);
            for (int n = 0; more && n < 4; ++n) more = attn::extend_generated(*more);
            REQUIRE(more);
            const attn::ModelRun at_once = run_llama_text(loaded, text, 4, how);
            REQUIRE(at_once.generated.size() == 4);
            check_same_run(*more, at_once);
            CHECK(more->sampler.sampled_tokens() == (how.sampled() ? 4 : 0));
            const std::optional<attn::ModelRun> fifth = attn::extend_generated(*more), fifth_at_once = attn::extend_generated(at_once);
            REQUIRE(fifth);
            REQUIRE(fifth_at_once);
            CHECK(fifth->generated == fifth_at_once->generated);
        }
    }
}

TEST_CASE("a Llama-family run's cache: a picked position, and what takes a full run", "[llama]") {
    const json doc = json::parse(std::ifstream(kGolden + "llama_golden.json"));
    const json& model = doc["models"][1];  // llama3-scaled-tied-bf16: 4 query heads, 2 key/value heads
    const ModelCopy copy(model["name"].get<std::string>(), true);
    const attn::LoadedModel loaded = attn::load_model(copy.dir, 0);
    const attn::LanguageModel& tokenizer = *loaded.model;  // its tokenizer.json: encode
    const std::string text = text_of(model["token_ids"].get<std::vector<int64_t>>());
    const attn::ModelRun run = run_llama_text(loaded, text.substr(0, 5));
    // A picked position before the new tokens keeps its next tokens; one among them has its step's.
    for (const int at : {2, 7}) {
        INFO("next at " << at);
        const std::optional<attn::ModelRun> picked = attn::extend_model_run(run, tokenizer.encode(text), at);
        REQUIRE(picked);
        CHECK(picked->next_position == at);
        check_same_next_tokens(picked->next_tokens, run_llama_text(loaded, text, 0, {}, at).next_tokens);
    }
    CHECK_FALSE(attn::extend_model_run(run, tokenizer.encode(text), 9));  // past the tokens
    CHECK_FALSE(attn::extend_model_run(run, tokenizer.encode(text.substr(0, 5))));  // nothing new
    CHECK_FALSE(attn::extend_model_run(run, tokenizer.encode("x" + text)));          // another prefix
    attn::Tokenized outside = tokenizer.encode(text);
    outside.ids.back() = attn::model_shape(loaded).vocab_size;  // an id past the vocabulary
    CHECK_FALSE(attn::extend_model_run(run, outside));
    // The context full: 64 tokens (max_position_embeddings) take no more.
    const int64_t context = attn::model_shape(loaded).context_length;
    const attn::ModelRun almost = run_llama_text(loaded, std::string(static_cast<size_t>(context) - 1, 'a'));
    const std::optional<attn::ModelRun> full = attn::extend_generated(almost);
    REQUIRE(full);
    CHECK(static_cast<int64_t>(full->tokens.ids.size()) == context);
    CHECK_FALSE(attn::extend_generated(*full));
    CHECK_FALSE(attn::extend_model_run(almost, tokenizer.encode(std::string(static_cast<size_t>(context) + 1, 'a'))));
    // The size the model view shows: 2 key/value heads where a cache per query head has 4.
    const attn::RunCacheSize size = attn::run_cache_size(run);
    CHECK(size.per_query_head_bytes() == 2 * size.bytes());
    CHECK(attn::run_cache_line(run) ==
          "KV cache: 3 layers × 2 key/value heads × 8 dims × 5 tokens × keys and values = 1.9 kB (float32); "
          "a key/value head for each of the 4 query heads would need 3.8 kB, 2× as much");
}
