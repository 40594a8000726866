#pragma once
// The KV cache, step by step (the book's ch04/03_kv-cache, and its GQA, SWA and MLA
// versions): the text is fed one token at a time, as generation does. Each step projects
// only the new token, appends what the module caches (a key and value per group; for a
// sliding window the oldest is dropped once W are held; for MLA only the latent row),
// and attends with the new query over the cache. The output row it gives is the full
// forward's row for that token, up to float rounding.
//
// The walk is computed in evaluation mode (no dropout): generation runs model.eval().
#include "attention/attention.h"

namespace attn {

struct KvCacheStep {
    long step = 0;               // the position of the token fed (0-based)
    long first_cached = 0;       // the position of the oldest token the cache holds
    long cached = 0;             // tokens the cache holds after this step
    int head = 0, group = 0;     // the head shown, and its key/value group
    Matrix query;                // 1 x hd: the new token's query for the head (rotated with RoPE)
    Matrix keys, values;         // cached x hd: the head's group's keys and values over the cache
    Matrix latents;              // mla: cached x latent_dim, what its cache really holds
    Matrix weights;              // 1 x cached: softmax(query · keysᵀ / √hd)
    Matrix context;              // 1 x hd
    Matrix output;               // 1 x d_out: out_proj of every head's context
    long cache_bytes = 0;        // float32 bytes the cache holds after this step
    long full_cache_bytes = 0;   // the same for a module that caches K and V of every head
};

// The step `step` of feeding `x` (T x d_in) to `m` token by token, showing `head`. Throws
// ConfigError for a variant without a KV cache (the chapter 3 modules, but mha) or a
// step or head out of range.
KvCacheStep kv_cache_step(const AttentionModule& m, const Matrix& x, long step, int head);

}  // namespace attn
