// A Llama-family model as the app runs it (run_model, the model view's ModelRun) against
// the same PyTorch golden data as the forward itself (tests/golden/llama_golden.json,
// written by make_llama_golden.py): the app path must not change a number. The golden
// folders have no tokenizer.json (their vocabulary is 96 random tokens); each copy here
// gets one whose tokens are single characters (94 printable ASCII, the space, one special),
// so that a text of the ids' characters tokenizes back to exactly the golden ids.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/llama_forward.h"
#include "run/model_run.h"
#include "stage_mismatch.h"

using nlohmann::json;
using attn::test::mismatch;

namespace {

const std::string kGolden = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/";

// id i < 94 is the character 33 + i: "!" .. "~" (byte-level BPE keeps these bytes as they are).
json one_character_tokenizer() {
    json vocab = json::object();
    for (int i = 0; i < 94; ++i) vocab[std::string(1, static_cast<char>(33 + i))] = i;
    vocab["\xC4\xA0"] = 94;  // "Ġ": byte-level BPE's space
    json added = json::array({{{"id", 95}, {"content", "<|end|>"}, {"special", true}, {"normalized", false},
                               {"single_word", false}, {"lstrip", false}, {"rstrip", false}}});
    return {{"version", "1.0"},
            {"added_tokens", added},
            {"normalizer", nullptr},
            {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
            {"decoder", {{"type", "ByteLevel"}}},
            {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}}}};
}

// A copy of golden model `name` with that tokenizer.json (or none).
struct ModelCopy {
    std::string dir;
    ModelCopy(const std::string& name, bool with_tokenizer) {
        dir = std::filesystem::temp_directory_path() / ("attnscope-llama-run-" + std::to_string(::getpid()) + (with_tokenizer ? "" : "-bare"));
        std::filesystem::remove_all(dir);
        std::filesystem::copy(kGolden + "llama/" + name, dir);
        if (with_tokenizer) std::ofstream(dir + "/tokenizer.json") << one_character_tokenizer().dump();
    }
    ~ModelCopy() { std::filesystem::remove_all(dir); }
};

std::string text_of(const std::vector<int64_t>& ids) {
    std::string text;
    for (const int64_t id : ids) text += static_cast<char>(33 + id);
    return text;
}

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
        REQUIRE(loaded.llama);
        REQUIRE(loaded.tokenizer);
        const attn::ModelShape shape = attn::model_shape(loaded);
        const attn::LlamaConfig& c = loaded.llama->config();
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
        const attn::LlamaTrace forward = attn::llama_forward(*loaded.llama, ids);
        CHECK(picked->next_tokens.front().id == attn::top_next_tokens(attn::llama_logits_at(*loaded.llama, forward, 2), 1)[0].id);
        // No KV cache is kept for these: a longer text is a full run.
        attn::Tokenized longer = run.tokens;
        longer.tokens.push_back("!");
        longer.ids.push_back(0);
        CHECK_FALSE(attn::extend_model_run(run, longer));
        CHECK_FALSE(attn::extend_generated(run));
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
    s.text = std::string(static_cast<size_t>(loaded.llama->config().max_positions) + 1, 'a');
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
