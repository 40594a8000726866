#pragma once
// A model run's KV cache, either kind of model's (GPT-2's kv_cache.h, a Llama's
// llama_cache.h): how extend_model_run grows a copy of it, one token at a time, without
// knowing which kind it grows.
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
    // Hands the grown cache over to `run`.
    virtual void store(ModelRun& run) = 0;
};
// A copy of `run`'s cache; null when it keeps none.
std::unique_ptr<GrowingCache> growing_cache(const ModelRun& run);

}  // namespace attn
