// Llama-family checkpoints (Llama 3, Qwen2.5, Qwen3 in Hugging Face's layout) against
// PyTorch running transformers' computation with the same files' weights:
// tests/golden/llama_golden.json and tests/golden/llama/, written by
// tests/golden/make_llama_golden.py (never by hand). Every stage within 1e-4 of its own
// scale, in F32, F16 and BF16 files, one model in two shards. Then what is not supported
// is refused in one line naming why.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/llama_forward.h"
#include "stage_mismatch.h"

using nlohmann::json;
using attn::test::mismatch;

namespace {

const std::string kGolden = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/";

const json& golden() {
    static const json doc = [] {
        std::ifstream in(kGolden + "llama_golden.json");
        if (!in) throw std::runtime_error("cannot open tests/golden/llama_golden.json (run make_llama_golden.py)");
        return json::parse(in);
    }();
    return doc;
}

attn::Matrix row_of(const attn::RowVector& v) { return attn::Matrix(v); }

}  // namespace

TEST_CASE("Llama-family checkpoints: every layer's and head's weights, a head's stages, the logits are torch's",
          "[gpt][llama]") {
    REQUIRE(golden()["models"].size() == 4);
    for (const json& model : golden()["models"]) {
        const std::string name = model["name"];
        INFO(name << " (" << model["dtype"].get<std::string>() << ")");
        const attn::LlamaCheckpoint checkpoint(kGolden + "llama/" + name);
        const std::vector<int64_t> ids = model["token_ids"];
        const attn::ModelTrace trace = attn::llama_forward(checkpoint, ids);
        const attn::LlamaConfig& c = checkpoint.config();
        REQUIRE(trace.blocks.size() == model["weights"].size());
        for (size_t layer = 0; layer < trace.blocks.size(); ++layer) {
            const attn::Trace& t = trace.blocks[layer].attention;
            REQUIRE(t.heads.size() == model["weights"][layer].size());
            for (size_t h = 0; h < t.heads.size(); ++h) {
                INFO("layer " << layer << " head " << h);
                CHECK(t.head_groups[h] == static_cast<int>(h) / c.group_size());
                CHECK(mismatch("weights", t.heads[h].at("weights"), model["weights"][layer][h]) == "");
            }
        }
        const json& of = model["stages_of"];
        const attn::HeadTrace& head = trace.blocks[of["layer"].get<size_t>()].attention.heads[of["head"].get<size_t>()];
        for (const auto& [stage, expected] : of["stages"].items()) {
            INFO("layer " << of["layer"] << " head " << of["head"]);
            CHECK(mismatch(stage, head.at(stage), expected) == "");
        }
        CHECK(mismatch("last_logits", row_of(trace.logits.bottomRows(1)), json::array({model["last_logits"]})) == "");
        json top = json::array();
        for (size_t i = 0; i < model["top"]["ids"].size(); ++i)
            top.push_back({{"id", model["top"]["ids"][i]}, {"prob", model["top"]["probs"][i]}});
        CHECK(attn::test::next_token_mismatch(trace.logits.bottomRows(1), top) == "");
        // Computing only what is shown: a clicked position's logits, from the same trace.
        const attn::RowVector last = attn::llama_logits_at(checkpoint, trace, static_cast<int64_t>(ids.size()) - 1);
        CHECK(last == trace.logits.bottomRows(1));
    }
}

namespace {

// A copy of a golden model's folder with its config.json edited by `edit`: what the
// refusal of loading it says ("(loaded)" when it loads).
std::string refusal_of(const std::string& model, const std::function<void(json&)>& edit,
                       const std::function<void(const std::string&)>& touch = {}) {
    const std::string dir = std::filesystem::temp_directory_path() / ("attnscope-llama-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::copy(kGolden + "llama/" + model, dir);
    json config = json::parse(std::ifstream(dir + "/config.json"));
    edit(config);
    std::ofstream(dir + "/config.json") << config.dump();
    if (touch) touch(dir);
    std::string why = "(loaded)";
    try {
        attn::LlamaCheckpoint checkpoint(dir);
        attn::llama_forward(checkpoint, {1, 2, 3});
    } catch (const attn::ModelFileError& e) {
        why = e.what();
    }
    std::filesystem::remove_all(dir);
    return why;
}

}  // namespace

TEST_CASE("a Llama-family model this forward does not compute is refused in one line naming why", "[llama]") {
    const std::string plain = "llama-plain-f32";
    CHECK(refusal_of(plain, [](json&) {}) == "(loaded)");
    CHECK_THAT(refusal_of(plain, [](json& c) { c["model_type"] = "mistral"; }),
               Catch::Contains("model_type \"mistral\" is not supported (llama, qwen2 and qwen3 are)"));
    CHECK_THAT(refusal_of(plain, [](json& c) { c.erase("model_type"); }), Catch::Contains("names no model_type"));
    CHECK_THAT(refusal_of(plain, [](json& c) { c["num_local_experts"] = 8; }),
               Catch::Contains("Mixture-of-Experts model (num_local_experts) is not supported"));
    CHECK_THAT(refusal_of(plain, [](json& c) { c["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}}; }),
               Catch::Contains("rope_scaling \"yarn\" is not supported"));
    CHECK_THAT(refusal_of(plain, [](json& c) { c["hidden_act"] = "gelu"; }), Catch::Contains("hidden_act \"gelu\""));
    CHECK_THAT(refusal_of(plain, [](json& c) { c["num_key_value_heads"] = 3; }),
               Catch::Contains("num_attention_heads (4) is not a multiple of num_key_value_heads (3)"));
    CHECK_THAT(refusal_of(plain, [](json& c) { c["hidden_size"] = "32"; }), Catch::Contains("hidden_size is not a whole number"));
    CHECK_THAT(refusal_of(plain, [](json& c) { c["intermediate_size"] = 41; }),
               Catch::Contains("model.layers.0.mlp.gate_proj.weight is [40, 32], config.json makes it [41, 32]"));
    CHECK_THAT(refusal_of(plain, [](json& c) { c["tie_word_embeddings"] = false; c["num_hidden_layers"] = 3; }),
               Catch::Contains("has no tensor model.layers.2.input_layernorm.weight"));
    CHECK_THAT(refusal_of(plain, [](json& c) { c["max_position_embeddings"] = 2; }),
               Catch::Contains("3 tokens are more than the model's max_position_embeddings (2)"));
    CHECK_THAT(refusal_of(plain, [](json&) {},
                          [](const std::string& dir) {
                              std::ofstream(dir + "/model.safetensors.index.json")
                                  << R"({"weight_map": {"model.norm.weight": "../model.safetensors"}})";
                          }),
               Catch::Contains("../model.safetensors is not a file in the model's folder"));
    CHECK_THAT(refusal_of(plain, [](json&) {},
                          [](const std::string& dir) { std::ofstream(dir + "/model.safetensors.index.json") << "[1]"; }),
               Catch::Contains("no weight_map object"));
}

TEST_CASE("a Llama forward's layer traces say what they kept, so that a view asks for another head's stages",
          "[llama]") {
    // The app compares a trace's KeptStages with the head on screen and asks for a run
    // keeping that head's every stage when they differ: a trace claiming "everything"
    // (the default) left head 0's pipeline on screen after a click on head 1.
    const attn::LlamaCheckpoint model(std::string(ATTNSCOPE_TESTS_DIR) + "/golden/llama/qwen2-bias-f16-shards");
    std::vector<attn::KeptStages> keep(3, attn::KeptStages::only({"weights"}));
    keep[1] = attn::KeptStages::only({"weights"}, 2);
    const attn::ModelTrace trace = attn::llama_forward(model, {1, 2, 3, 4}, keep);
    REQUIRE(trace.blocks.size() == 3);
    for (size_t l = 0; l < 3; ++l) {
        const attn::KeptStages& kept = trace.blocks[l].attention.kept;
        CHECK_FALSE(kept.everything);
        CHECK(kept.detail_head == (l == 1 ? 2 : -1));
    }
    CHECK(trace.blocks[1].attention.heads[2].find("scores"));
    CHECK_FALSE(trace.blocks[1].attention.heads[1].find("scores"));
}
