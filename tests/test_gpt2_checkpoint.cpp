// GPT-2 checkpoints (safetensors, Hugging Face's layout) against PyTorch running the
// book's GPTModel with the same file's weights loaded as chapter 5 does:
// tests/golden/checkpoint_golden.json and tests/golden/checkpoints/, written by
// tests/golden/make_checkpoint_golden.py (never by hand). Each stage within 1e-4 of its
// own scale. Then every way a file can be broken, each refused in one line.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/gpt2_checkpoint.h"
#include "model/model_source.h"
#include "text/gpt2_tokenizer.h"
#include "model/gpt_forward.h"
#include "model/kv_cache.h"
#include "model/next_token.h"
#include "stage_mismatch.h"

using nlohmann::json;
using attn::test::mismatch;

namespace {

const std::string kGolden = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/";

const json& golden() {
    static const json doc = [] {
        std::ifstream in(kGolden + "checkpoint_golden.json");
        if (!in) throw std::runtime_error("cannot open tests/golden/checkpoint_golden.json (run make_checkpoint_golden.py)");
        return json::parse(in);
    }();
    return doc;
}

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

// A scratch folder for broken files, removed with what it holds.
struct ScratchDir {
    std::string path;
    ScratchDir() {
        char name[] = "/tmp/attnscope-ckpt-XXXXXX";
        path = ::mkdtemp(name);
    }
    ~ScratchDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

// A safetensors image: the header as given, then `data`.
std::string image(const json& header, const std::string& data) {
    const std::string text = header.dump();
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[static_cast<size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
    return bytes + text + data;
}

// The golden f32 checkpoint split into its header and data, to be broken one way at a time.
struct Parts {
    json header;
    std::string data;
};
Parts f32_parts() {
    const std::string bytes = file_bytes(kGolden + "checkpoints/f32-config/model.safetensors");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
    Parts p{json::parse(bytes.substr(8, n)), bytes.substr(8 + n)};
    p.header["__metadata__"]["n_head"] = "4";  // its config.json stays behind
    return p;
}

// What loading `bytes` (saved as model.safetensors in a folder of its own) says.
std::string refusal(const std::string& bytes) {
    ScratchDir dir;
    write_bytes(dir.path + "/model.safetensors", bytes);
    try {
        attn::load_gpt2_checkpoint(dir.path);
    } catch (const attn::ModelFileError& e) {
        const std::string what = e.what();
        CHECK(what.find('\n') == std::string::npos);
        CHECK(what.rfind(dir.path + "/model.safetensors: ", 0) == 0);  // names the file first
        return what;
    }
    return "(loaded)";
}

}  // namespace

TEST_CASE("GPT-2 checkpoints: every head's weights, the logits and the next tokens are torch's", "[gpt][checkpoint]") {
    for (const json& g : golden().at("checkpoints")) {
        INFO(g.at("name").get<std::string>());
        const attn::Gpt2Checkpoint c = attn::load_gpt2_checkpoint(kGolden + g.at("file").get<std::string>());
        const attn::GptConfig& cfg = c.model.cfg;
        const json& config = g.at("config");
        CHECK(cfg.vocab_size == config.at("vocab"));
        CHECK(cfg.context_length == config.at("ctx"));
        CHECK(cfg.emb_dim == config.at("d"));
        CHECK(cfg.n_heads == config.at("heads"));
        CHECK(cfg.n_layers == config.at("layers"));
        CHECK(c.dtype == (g.at("dtype") == "F32" ? "float32" : g.at("dtype") == "F16" ? "float16" : "bfloat16"));

        const std::vector<int64_t> ids = g.at("ids");
        const attn::ModelTrace t = attn::gpt_forward(c.model, ids);
        for (size_t l = 0; l < t.blocks.size(); ++l)
            for (size_t h = 0; h < t.blocks[l].attention.heads.size(); ++h)
                CHECK(mismatch("layer " + std::to_string(l) + " head " + std::to_string(h) + " weights",
                               t.blocks[l].attention.heads[h].at("weights"), g.at("layers")[l].at("weights")[h]) == "");
        CHECK(mismatch("logits", t.logits, g.at("logits")) == "");

        // Every stage of one head, as the pipeline shows it.
        const json& d = g.at("detail");
        const attn::BlockTrace& block = t.blocks[d.at("layer").get<size_t>()];
        const attn::HeadTrace& head = block.attention.heads[d.at("head").get<size_t>()];
        for (const char* stage : {"W_query", "W_key", "W_value", "b_query", "b_key", "b_value", "queries", "keys",
                                  "values", "scores", "scaled_scores", "masked_scores", "weights", "context"})
            CHECK(mismatch(stage, head.at(stage), d.at(stage)) == "");
        CHECK(mismatch("inputs", block.inputs, d.at("inputs")) == "");
        CHECK(mismatch("normed1", block.normed1, d.at("normed1")) == "");
        CHECK(mismatch("W_out", block.attention.model.at("W_out"), d.at("W_out")) == "");
        CHECK(mismatch("b_out", block.attention.model.at("b_out"), d.at("b_out")) == "");
        CHECK(mismatch("residual1", block.residual1, d.at("residual1")) == "");
        CHECK(mismatch("outputs", block.outputs, d.at("outputs")) == "");

        CHECK(attn::test::next_token_mismatch(t.logits.row(t.logits.rows() - 1), g.at("next_token")) == "");
        const std::vector<int64_t> generated = g.at("generated");
        const int new_tokens = static_cast<int>(generated.size() - ids.size());
        CHECK(attn::generate_greedy(c.model, ids, new_tokens) == generated);
        CHECK(attn::generate_cached(c.model, ids, new_tokens) == generated);
    }
}

TEST_CASE("GPT-2 checkpoints: where the heads and the head come from", "[gpt][checkpoint]") {
    const auto load = [](const char* name) { return attn::load_gpt2_checkpoint(kGolden + "checkpoints/" + name); };
    CHECK(load("f32-config").heads_from == "config.json");
    CHECK(load("f16-prefixed").heads_from == "__metadata__");
    const attn::Gpt2Checkpoint wide = load("bf16-64wide");
    CHECK(wide.heads_from == "64-wide heads");
    CHECK(wide.model.out_head.has_value());           // its lm_head.weight differs from wte
    CHECK_FALSE(load("f16-prefixed").model.out_head);  // tied: one copy
    CHECK(attn::checkpoint_file(kGolden + "checkpoints/f32-config") ==
          kGolden + "checkpoints/f32-config/model.safetensors");
}

TEST_CASE("a broken or unsupported checkpoint is refused in one line naming why", "[checkpoint]") {
    const Parts good = f32_parts();
    REQUIRE(refusal(image(good.header, good.data)) == "(loaded)");  // the pieces below start from a loadable file

    CHECK_THAT(refusal("abc"), Catch::Contains("too short for a safetensors file (3 bytes)"));
    std::string huge(8, '\0');
    huge[4] = 1;  // 2^32 bytes of header
    CHECK_THAT(refusal(huge + "{}"), Catch::Contains("at most 100 MB"));
    std::string past = image(good.header, good.data);
    CHECK_THAT(refusal(past.substr(0, 8) + "{\"a\":"), Catch::Contains("runs past the end of the file"));
    CHECK_THAT(refusal(image(json::array({1, 2}), "")), Catch::Contains("header is not a JSON object"));
    std::string not_json = image(good.header, good.data);
    not_json[9] = '#';
    CHECK_THAT(refusal(not_json), Catch::Contains("header is not a JSON object"));

    const auto broken = [&](const std::string& tensor, const char* key, const json& value) {
        Parts p = good;
        p.header[tensor][key] = value;
        return refusal(image(p.header, p.data));
    };
    CHECK_THAT(broken("wte.weight", "dtype", "F12"), Catch::Contains("tensor 'wte.weight' has an unknown dtype 'F12'"));
    CHECK_THAT(broken("wte.weight", "shape", json::array({97, 31})),
               Catch::Contains("has shape [97, 31] of F32 (3007 elements) but 12416 bytes"));
    CHECK_THAT(broken("wte.weight", "shape", json::array({97, -32})), Catch::Contains("shape is not a list of sizes"));
    CHECK_THAT(broken("wte.weight", "shape", json::array({1ull << 40, 1ull << 40})),
               Catch::Contains("larger than the file's data"));
    CHECK_THAT(broken("wpe.weight", "data_offsets", json::array({0, 2048})), Catch::Contains("overlap"));
    const uint64_t size = good.data.size();
    CHECK_THAT(broken("ln_f.bias", "data_offsets", json::array({size, size + 128})),
               Catch::Contains("ends at byte " + std::to_string(size + 128)));
    CHECK_THAT(broken("ln_f.bias", "data_offsets", json::array({8, 4})), Catch::Contains("begin <= end"));
    {
        Parts p = good;
        p.header["ln_f.bias"]["extra"] = 1;
        CHECK_THAT(refusal(image(p.header, p.data)), Catch::Contains("is not {dtype, shape, data_offsets}"));
        p = good;
        p.header["__metadata__"]["n_head"] = 4;
        CHECK_THAT(refusal(image(p.header, p.data)), Catch::Contains("__metadata__ 'n_head' is not a string"));
        p = good;
        p.header.erase("h.1.mlp.c_fc.bias");
        CHECK_THAT(refusal(image(p.header, p.data)), Catch::Contains("missing tensor h.1.mlp.c_fc.bias"));
        p = good;
        p.header.erase("wte.weight");
        CHECK_THAT(refusal(image(p.header, p.data)), Catch::Contains("no wte.weight: not a GPT-2 checkpoint"));
        p = good;  // the same 128 bytes read as 16 doubles where 32 floats belong
        p.header["ln_f.bias"]["shape"] = json::array({16});
        p.header["ln_f.bias"]["dtype"] = "F64";
        CHECK_THAT(refusal(image(p.header, p.data)), Catch::Contains("ln_f.bias has shape [16]; the other tensors need [32]"));
        p.header["ln_f.bias"]["shape"] = json::array({32});
        p.header["ln_f.bias"]["dtype"] = "I32";
        CHECK_THAT(refusal(image(p.header, p.data)), Catch::Contains("ln_f.bias is I32; weights must be F32, F16 or BF16"));
    }

    // config.json beside the file must agree with the tensors and ask for GPT-2's arithmetic.
    const auto with_config = [&](const json& config) {
        ScratchDir dir;
        write_bytes(dir.path + "/model.safetensors", image(good.header, good.data));
        write_bytes(dir.path + "/config.json", config.is_string() ? config.get<std::string>() : config.dump());
        try {
            attn::load_gpt2_checkpoint(dir.path + "/model.safetensors");
        } catch (const attn::ModelFileError& e) {
            return std::string(e.what());
        }
        return std::string("(loaded)");
    };
    CHECK(with_config({{"n_head", 4}}) == "(loaded)");
    CHECK_THAT(with_config({{"n_head", 4}, {"n_layer", 3}}), Catch::Contains("config.json says n_layer = 3 but the tensors have 2"));
    CHECK_THAT(with_config({{"n_head", 5}}), Catch::Contains("must be divisible by n_heads (5)"));
    CHECK_THAT(with_config({{"activation_function", "relu"}}), Catch::Contains("GELU's tanh form"));
    CHECK_THAT(with_config({{"layer_norm_epsilon", 1e-6}}), Catch::Contains("GPT-2 and the book use 1e-5"));
    CHECK_THAT(with_config({{"model_type", "llama"}}), Catch::Contains("\"llama\" model"));
    CHECK_THAT(with_config(json("{oops")), Catch::Contains("config.json beside it is not a JSON object"));

    ScratchDir dir;
    CHECK_THROWS_WITH(attn::load_gpt2_checkpoint(dir.path + "/nothing.safetensors"), Catch::EndsWith(": no such file"));
    CHECK_THROWS_WITH(attn::load_gpt2_checkpoint(dir.path), Catch::EndsWith("model.safetensors: no such file"));
    const std::string fifo = dir.path + "/fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THROWS_WITH(attn::load_gpt2_checkpoint(fifo), Catch::EndsWith(": not a file"));  // never blocks on a reader
}

TEST_CASE("the shipped model: every head's weights, the next tokens and generation are torch's", "[gpt][checkpoint]") {
    const json& g = golden().at("shipped");
    const attn::LoadedModel m = attn::load_model(attn::kShippedModel, 0);
    const attn::GptConfig& cfg = m.model->gpt_weights()->cfg;
    const json& config = g.at("config");
    CHECK(cfg.n_layers == config.at("n_layers"));
    CHECK(cfg.n_heads == config.at("n_heads"));
    CHECK(cfg.emb_dim == config.at("emb_dim"));
    CHECK(m.dtype == "float16");
    const std::vector<int64_t> ids = g.at("ids");
    CHECK(attn::gpt2_tokenizer().encode_ids(g.at("text").get<std::string>()) == ids);  // the script's BPE agrees
    const attn::ModelTrace t = attn::gpt_forward(*m.model->gpt_weights(), ids, attn::KeptStages::only({"weights"}));
    for (size_t l = 0; l < t.blocks.size(); ++l)
        for (size_t h = 0; h < t.blocks[l].attention.heads.size(); ++h)
            CHECK(mismatch("layer " + std::to_string(l) + " head " + std::to_string(h) + " weights",
                           t.blocks[l].attention.heads[h].at("weights"), g.at("layers")[l].at("weights")[h]) == "");
    CHECK(attn::test::next_token_mismatch(t.logits.row(t.logits.rows() - 1), g.at("next_token")) == "");
    const std::vector<int64_t> generated = g.at("generated");
    CHECK(attn::generate_cached(*m.model->gpt_weights(), ids, static_cast<int>(generated.size() - ids.size())) == generated);
}
