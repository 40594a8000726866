#include "model/llama_config.h"

#include <nlohmann/json.hpp>

namespace attn {

namespace {

using nlohmann::json;

struct Reader {
    const json& j;
    const std::string& where;

    [[noreturn]] void fail(const std::string& why) const { throw ModelFileError(where + ": " + why); }

    const json* find(const char* key) const {
        const auto it = j.find(key);
        return it == j.end() || it->is_null() ? nullptr : &*it;
    }
    int64_t integer(const char* key, int64_t lo, int64_t hi, std::optional<int64_t> fallback = std::nullopt) const {
        const json* v = find(key);
        if (!v) {
            if (fallback) return *fallback;
            fail(std::string("config.json has no ") + key);
        }
        if (!v->is_number_integer()) fail(std::string(key) + " is not a whole number");
        const int64_t n = v->get<int64_t>();
        if (n < lo || n > hi)
            fail(std::string(key) + " = " + std::to_string(n) + " is outside " + std::to_string(lo) + ".." +
                 std::to_string(hi));
        return n;
    }
    double real(const char* key, double lo, double hi, double fallback) const {
        const json* v = find(key);
        if (!v) return fallback;
        if (!v->is_number()) fail(std::string(key) + " is not a number");
        const double x = v->get<double>();
        if (!(x >= lo && x <= hi)) fail(std::string(key) + " is outside the range this forward takes");
        return x;
    }
    bool boolean(const char* key, bool fallback) const {
        const json* v = find(key);
        if (!v) return fallback;
        if (!v->is_boolean()) fail(std::string(key) + " is not true or false");
        return v->get<bool>();
    }
    std::string text(const char* key) const {
        const json* v = find(key);
        return v && v->is_string() ? v->get<std::string>() : "";
    }
};

std::optional<Llama3RopeScaling> rope_scaling_of(const Reader& r) {
    const json* s = r.find("rope_scaling");
    if (!s) return std::nullopt;
    if (!s->is_object()) r.fail("rope_scaling is not an object");
    const Reader in{*s, r.where};
    std::string type = in.text("rope_type");
    if (type.empty()) type = in.text("type");
    if (type == "default") return std::nullopt;
    if (type != "llama3")
        r.fail("rope_scaling \"" + type + "\" is not supported (Llama 3's \"llama3\" is)");
    Llama3RopeScaling out;
    out.factor = in.real("factor", 1.0, 1e6, out.factor);
    out.low_freq_factor = in.real("low_freq_factor", 1e-6, 1e6, out.low_freq_factor);
    out.high_freq_factor = in.real("high_freq_factor", 1e-6, 1e6, out.high_freq_factor);
    if (!(out.high_freq_factor > out.low_freq_factor)) r.fail("rope_scaling's high_freq_factor must exceed low_freq_factor");
    out.original_context = static_cast<double>(in.integer("original_max_position_embeddings", 1, 1 << 24, 8192));
    return out;
}

}  // namespace

bool is_llama_family_config(const std::string& json_text) {
    const json j = json::parse(json_text, nullptr, false);
    if (!j.is_object() || !j.contains("model_type") || !j["model_type"].is_string()) return false;
    const std::string type = j["model_type"].get<std::string>();
    return type == "llama" || type == "qwen2" || type == "qwen3";
}

LlamaConfig parse_llama_config(const std::string& json_text, const std::string& where) {
    const json j = json::parse(json_text, nullptr, false);
    if (!j.is_object()) throw ModelFileError(where + ": not a JSON object");
    const Reader r{j, where};
    LlamaConfig c;
    c.model_type = r.text("model_type");
    if (c.model_type == "llama") c.kind = LlamaKind::Llama;
    else if (c.model_type == "qwen2") c.kind = LlamaKind::Qwen2;
    else if (c.model_type == "qwen3") c.kind = LlamaKind::Qwen3;
    else if (c.model_type.empty()) r.fail("config.json names no model_type");
    else r.fail("model_type \"" + c.model_type + "\" is not supported (llama, qwen2 and qwen3 are)");
    // What the family's forward does not compute: refused rather than computed wrongly.
    for (const char* experts : {"num_experts", "num_local_experts", "n_routed_experts"})
        if (r.find(experts) && r.integer(experts, 0, 1 << 20) > 0)
            r.fail("a Mixture-of-Experts model (" + std::string(experts) + ") is not supported");
    const std::string act = r.text("hidden_act");
    if (!act.empty() && act != "silu") r.fail("hidden_act \"" + act + "\" is not supported (SwiGLU's silu is)");
    if (r.boolean("use_sliding_window", false)) r.fail("use_sliding_window is not supported");
    if (r.boolean("mlp_bias", false)) r.fail("mlp_bias is not supported");

    c.hidden_size = static_cast<int>(r.integer("hidden_size", 1, 1 << 16));
    c.heads = static_cast<int>(r.integer("num_attention_heads", 1, 1024));
    c.kv_heads = static_cast<int>(r.integer("num_key_value_heads", 1, 1024, c.heads));
    if (c.heads % c.kv_heads != 0)
        r.fail("num_attention_heads (" + std::to_string(c.heads) + ") is not a multiple of num_key_value_heads (" +
               std::to_string(c.kv_heads) + ")");
    const int64_t fallback_head_dim = c.hidden_size / c.heads;
    c.head_dim = static_cast<int>(r.integer("head_dim", 2, 4096, fallback_head_dim));
    if (c.head_dim % 2 != 0) r.fail("head_dim must be even: RoPE rotates pairs of features");
    c.intermediate_size = static_cast<int>(r.integer("intermediate_size", 1, 1 << 20));
    c.layers = static_cast<int>(r.integer("num_hidden_layers", 1, 1024));
    c.vocab_size = r.integer("vocab_size", 1, 1 << 24);
    c.max_positions = r.integer("max_position_embeddings", 1, 1 << 24, 4096);
    c.rms_norm_eps = r.real("rms_norm_eps", 0.0, 1.0, 1e-6);
    c.rope_theta = r.real("rope_theta", 1.0, 1e12, 10000.0);
    c.rope_scaling = rope_scaling_of(r);
    c.tied_head = r.boolean("tie_word_embeddings", false);  // LlamaConfig, Qwen2Config and Qwen3Config default to false
    c.qkv_bias = c.kind == LlamaKind::Qwen2 || r.boolean("attention_bias", false);
    c.qk_norm = c.kind == LlamaKind::Qwen3;
    return c;
}

}  // namespace attn
