#pragma once
// A model run's KV cache, either kind of model's (GPT-2's kv_cache.h, a Llama's
// llama_cache.h): what it holds, and how extend_model_run grows a copy of it, one token
// at a time, without knowing which kind it grows.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "run/model_run.h"

namespace attn {

// What a run keeps of every head: its weights, and the keys and values its KV cache
// holds, as the forward names them ("keys"; a Llama's "keys_rotated", the keys RoPE
// turned, which is what its cache holds). The cache is made from them after a full run,
// and an extended run keeps the same stages.
std::vector<std::string> model_run_stages(const LoadedModel& model);

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

// A copy of a run's cache that grows by one token a call.
class GrowingCache {
public:
    virtual ~GrowingCache() = default;
    // Appends `id` (in the vocabulary, within the context: the caller checked) at the next
    // position: every layer's query heads' new row of weights, and the logits after it.
    virtual TokenStep append(int64_t id) = 0;
    // Query head `head` of `layer`: its keys and values for every token cached (its key/value
    // head's), under model_run_stages' names.
    virtual void add_keys_values(size_t layer, size_t head, HeadTrace& out) const = 0;
    // Forgets every token from position `tokens` on (fewer than it holds): the next
    // append is at that position.
    virtual void truncate(size_t tokens) = 0;
    // Hands the grown cache over to `run`.
    virtual void store(ModelRun& run) = 0;
};
// A copy of `run`'s cache; null when it keeps none.
std::unique_ptr<GrowingCache> growing_cache(const ModelRun& run);

}  // namespace attn
