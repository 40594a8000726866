#pragma once
// A Llama-family model's KV cache: every layer keeps the rotated keys and the values of
// its key/value heads for the tokens seen so far (kv_heads * head_dim a token, not
// heads * head_dim: grouped-query attention's saving), so that one more token costs one
// row of each product instead of a whole forward: its queries against the cached keys,
// its weights times the cached values. RoPE turns the new token's query and key by its
// own position; the cached keys were turned when they came.
#include <cstdint>
#include <vector>

#include "model/key_value_cache.h"  // TokenStep
#include "model/llama_forward.h"

namespace attn {

struct LlamaCache {
    std::vector<int64_t> ids;            // the tokens cached so far
    std::vector<Matrix> keys, values;    // per layer, T x (kv_heads * head_dim); keys rotated
    int64_t bytes() const;               // float32, every layer
};

// What appending one token computed: GPT-2's step (kv_cache.h), its weights a row per
// query head ([layer][query head], 1 x T), so that a model run grows either kind alike.
using LlamaTokenStep = TokenStep;

// The cache a forward leaves: the first query head of each key/value head must have
// kept "keys_rotated" and "values" (std::out_of_range otherwise).
LlamaCache llama_cache_from_trace(const LlamaConfig& c, const ModelTrace& trace);
// A full forward of `ids` that fills the cache, and the logits after its last token.
LlamaCache llama_prefill(const LlamaCheckpoint& model, const std::vector<int64_t>& ids, RowVector& logits);
// Appends `id` at the next position. Throws ModelFileError when the model's positions
// are used up or the id is outside the vocabulary (the cache is then unchanged).
LlamaTokenStep llama_append_token(const LlamaCheckpoint& model, LlamaCache& cache, int64_t id);

}  // namespace attn
