#include "attention/cache_sizes.h"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "attention/attention.h"
#include "attention/variants/weight_split.h"

namespace attn {

const std::vector<CacheModelSize>& cache_model_presets() {
    // name, layers, d_model, heads, kv groups, window, latent, tokens, batch, bytes
    static const std::vector<CacheModelSize> presets = {
        {"GPT-2 small (124M)", 12, 768, 12, 4, 128, 96, 1024, 1, 4},
        {"GPT-2 XL (1.5B)", 48, 1600, 25, 5, 256, 200, 1024, 1, 4},
        {"Llama 3 8B", 32, 4096, 32, 8, 4096, 512, 8192, 1, 2},
        {"Mistral 7B (SWA 4096)", 32, 4096, 32, 8, 4096, 512, 32768, 1, 2},
    };
    return presets;
}

std::vector<CacheSizeRow> kv_cache_table(const CacheModelSize& s, std::string& error) {
    error.clear();
    const auto positive = {s.layers, s.d_model, s.heads, s.kv_groups, s.latent, s.batch, s.bytes};
    if (std::any_of(positive.begin(), positive.end(), [](int v) { return v < 1; }) || s.window < 1 || s.tokens < 1)
        error = "every size must be at least 1";
    else if (s.d_model % s.heads != 0)
        error = "d_model (" + std::to_string(s.d_model) + ") must be divisible by heads (" + std::to_string(s.heads) + ")";
    else if (s.heads % s.kv_groups != 0)
        error = "heads (" + std::to_string(s.heads) + ") must be divisible by kv groups (" + std::to_string(s.kv_groups) + ")";
    if (!error.empty()) return {};
    // Each variant's bytes per token of one layer, from the engine's own formula
    // (kv_cache_size: float32), then every layer, the batch and the value width.
    AttentionConfig cfg;
    cfg.d_out = s.d_model;
    cfg.heads = s.heads;
    const auto bytes = [&](Variant v, int kv_groups, long window, int latent) {
        cfg.variant = v;
        cfg.kv_groups = kv_groups;
        cfg.window = static_cast<int>(std::min<long>(window, INT_MAX));
        cfg.latent_dim = latent;
        const KvCacheSize c = kv_cache_size(cfg, s.tokens);
        return static_cast<double>(c.bytes_per_token) * c.tokens / 4.0 * s.bytes * s.layers * s.batch;
    };
    const double mha = bytes(Variant::Mha, s.heads, 0, 0);
    const auto row = [&](std::string name, double b) { return CacheSizeRow{std::move(name), b, b / mha}; };
    return {
        row("MHA (" + std::to_string(s.heads) + " heads)", mha),
        row("GQA (" + std::to_string(s.kv_groups) + " key/value groups)", bytes(Variant::Gqa, s.kv_groups, 0, 0)),
        row("MQA (1 group)", bytes(Variant::Gqa, 1, 0, 0)),
        row("SWA (window " + std::to_string(s.window) + ")", bytes(Variant::Swa, s.heads, s.window, 0)),
        row("MLA (latent " + std::to_string(s.latent) + ")", bytes(Variant::Mla, s.heads, 0, s.latent)),
    };
}

std::string format_bytes(double bytes) {
    char text[48];
    if (bytes >= 1e9) std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1e6) std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1e3) std::snprintf(text, sizeof text, "%.1f kB", bytes / 1e3);
    else std::snprintf(text, sizeof text, "%.0f bytes", bytes);
    return text;
}

}  // namespace attn
