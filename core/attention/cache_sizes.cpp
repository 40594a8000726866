#include "attention/cache_sizes.h"

#include <algorithm>
#include <cstdio>

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
    const double per_token_value = static_cast<double>(s.layers) * s.batch * s.bytes;  // one value, every layer
    const double head_dim = static_cast<double>(s.d_model) / s.heads;
    const double T = static_cast<double>(s.tokens);
    const double mha = 2.0 * T * s.heads * head_dim * per_token_value;
    const auto row = [&](std::string name, double bytes) { return CacheSizeRow{std::move(name), bytes, bytes / mha}; };
    return {
        row("MHA (" + std::to_string(s.heads) + " heads)", mha),
        row("GQA (" + std::to_string(s.kv_groups) + " key/value groups)", 2.0 * T * s.kv_groups * head_dim * per_token_value),
        row("MQA (1 group)", 2.0 * T * head_dim * per_token_value),
        row("SWA (window " + std::to_string(s.window) + ")",
            2.0 * std::min<double>(T, static_cast<double>(s.window)) * s.heads * head_dim * per_token_value),
        row("MLA (latent " + std::to_string(s.latent) + ")", T * s.latent * per_token_value),
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
