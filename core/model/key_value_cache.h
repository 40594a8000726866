#pragma once
// A model's KV cache behind one interface, whichever family's it is (GPT-2's kv_cache.h,
// a Llama's llama_cache.h): what a run keeps to append a token (typed, or generated) for
// one row of each product instead of a whole forward.
#include <cstdint>
#include <memory>
#include <vector>

#include "attention/trace.h"

namespace attn {

// What appending one token computed.
struct TokenStep {
    std::vector<std::vector<RowVector>> weights;  // [layer][query head]: the new query's attention, 1 x T
    RowVector logits;                             // 1 x vocab_size: the next token's scores
};

class KeyValueCache {
public:
    virtual ~KeyValueCache() = default;
    // A copy that grows on its own (a run on screen keeps its cache unchanged).
    virtual std::unique_ptr<KeyValueCache> copy() const = 0;
    virtual const std::vector<int64_t>& ids() const = 0;  // the tokens cached
    // The keys and values of those tokens, float32, every layer (a Llama's: its key/value heads').
    virtual int64_t bytes() const = 0;
    // Appends `id` (in the vocabulary, within the context: the caller checked) at the next
    // position: every layer's query heads' new row of weights, and the logits after it.
    virtual TokenStep append(int64_t id) = 0;
    // Query head `head` of `layer`: its keys and values for every token cached (its
    // key/value head's), under the names the family's forward keeps them by
    // (LanguageModel::cache_stages: "keys", a Llama's "keys_rotated", and "values").
    virtual void add_keys_values(size_t layer, size_t head, HeadTrace& out) const = 0;
    // Forgets every token from position `tokens` on (fewer than it holds): the next
    // append is at that position.
    virtual void truncate(size_t tokens) = 0;
};

}  // namespace attn
