#pragma once
// Chapter 4's KV cache (LLMs-from-scratch ch04/03_kv-cache): every layer keeps the keys
// and values of the tokens seen so far, so that one more token (typed, or generated)
// costs one row of each product instead of a whole forward pass: its query against the
// cached keys, its weights times the cached values.
#include <cstdint>
#include <vector>

#include "model/gpt_forward.h"
#include "model/gpt_model.h"
#include "model/key_value_cache.h"  // TokenStep

namespace attn {

struct GptCache {
    std::vector<int64_t> ids;   // the tokens cached so far
    // Per layer, context_length x emb_dim (every head's columns side by side, as the mha
    // projects them); the first ids.size() rows hold the keys and values seen.
    std::vector<Matrix> keys, values;
};

GptCache empty_cache(const GptModel& model);
// The cache a full forward leaves: every layer's heads must have kept "keys" and
// "values" (T x head_dim each), which go side by side into the layer's rows 0..T.
// Throws std::logic_error when a head did not keep them.
GptCache cache_from_trace(const GptModel& model, const ModelTrace& trace);
// Appends `id` at the next position. Throws ConfigError when the context is full or the
// id is outside the vocabulary (the cache is then unchanged).
TokenStep append_token(const GptModel& model, GptCache& cache, int64_t id);

// generate (gpt_forward.h) with the cache, as the book's KV-cache generate does: one
// full forward of the prompt (its last context_length tokens) fills the cache and gives
// the first token's logits, then each new token costs one step. When the context is
// full the window moves on as generate's crop does, and a full forward of the cropped
// tokens fills the cache again (every position changed). The same ids as generate.
std::vector<int64_t> generate_cached(const GptModel& model, std::vector<int64_t> ids, int max_new_tokens,
                                     TokenSampler& sampler);
std::vector<int64_t> generate_cached(const GptModel& model, std::vector<int64_t> ids, int max_new_tokens);  // argmax
// The same from a cache already filled (a model run's) and the logits after its last
// token: returns its ids and the new ones. A run's prompt is not computed twice, and the
// tokens are those the app's one-a-run appends give (the same cache, the same steps).
std::vector<int64_t> generate_from_cache(const GptModel& model, GptCache cache, RowVector logits,
                                         int max_new_tokens, TokenSampler& sampler);

}  // namespace attn
