#pragma once
// The size of a model run's KV cache (model/key_value_cache.h), as the model view words it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "run/model_run.h"

namespace attn {

// What a run's cache holds, float32: every layer's keys and values of its key/value heads,
// for every token of the run. GPT-2 has a key/value head per query head; grouped-query
// attention (Llama 3, Qwen) fewer, each shared by a group of query heads, and that much
// smaller a cache (multi-query attention: one).
struct RunCacheSize {
    int layers = 0, kv_heads = 0, heads = 0, head_dim = 0;
    int64_t tokens = 0;
    int64_t bytes() const { return int64_t{layers} * kv_heads * head_dim * tokens * 2 * 4; }  // keys and values, 4 bytes each
    // The same with a key/value head per query head (multi-head attention's cache).
    int64_t per_query_head_bytes() const { return int64_t{layers} * heads * head_dim * tokens * 2 * 4; }
};
RunCacheSize run_cache_size(const ModelRun& run);
// The size as the model view words it: "KV cache: 3 layers × 2 key/value heads × 16 dims ×
// 7 tokens × keys and values = 5.4 kB (float32); a key/value head for each of the 4 query
// heads would need 10.8 kB, 2× as much" (GPT-2's: the size alone).
std::string run_cache_line(const ModelRun& run);

}  // namespace attn
