#include "run/run_cache_size.h"

#include <cstdio>
#include <utility>

#include "attention/cache_sizes.h"  // format_bytes

namespace attn {

RunCacheSize run_cache_size(const ModelRun& run) {
    const ModelShape shape = model_shape(run.model);
    return {shape.layers, shape.kv_heads, shape.heads, shape.head_dim, static_cast<int64_t>(run.tokens.ids.size())};
}

std::string run_cache_line(const ModelRun& run) {
    const RunCacheSize c = run_cache_size(run);
    const bool grouped = c.kv_heads < c.heads;
    const auto count = [](int64_t n, const char* one, const char* many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    std::string line = "KV cache: " + count(c.layers, "layer", "layers") + " × " +
                       (grouped ? count(c.kv_heads, "key/value head", "key/value heads") : count(c.heads, "head", "heads")) +
                       " × " + std::to_string(c.head_dim) + " dims × " + count(c.tokens, "token", "tokens") +
                       " × keys and values = " + format_bytes(static_cast<double>(c.bytes())) + " (float32)";
    if (!grouped) return line;
    char times[32];
    std::snprintf(times, sizeof times, "%g×", static_cast<double>(c.heads) / c.kv_heads);
    return line + "; a key/value head for each of the " + std::to_string(c.heads) + " query heads would need " +
           format_bytes(static_cast<double>(c.per_query_head_bytes())) + ", " + times + " as much";
}

}  // namespace attn
