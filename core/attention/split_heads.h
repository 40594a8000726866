#pragma once
// The weight-split modules: MultiHeadAttention (3.6.2) and today's variants built on it,
// grouped-query attention (with rotary positions), sliding-window attention and
// multi-head latent attention (the book's ch04 bonus material). Each projects the inputs
// once; head h takes columns [h*hd, (h+1)*hd) of the queries and the columns of its
// key/value group g = h / (heads / groups) of the keys and values, attends causally,
// and out_proj mixes the heads' context vectors.
#include "attention/attention.h"

namespace attn {

// The forward pass of a module whose variant splits heads (variants.h: split), stages
// recorded as `keep` asks, into `t` (which holds the inputs).
void forward_split(const AttentionModule& m, const Matrix& x, const KeptStages& keep, Trace& t);

// The width of head h's slice, and how many key/value groups the module has.
int head_dim_of(const AttentionConfig& cfg);
int kv_groups_of(const AttentionConfig& cfg);
// The sliding window the variant applies (0: none).
long window_of(const AttentionConfig& cfg);
// What the module's KV cache holds after T tokens (Trace::kv_cache).
KvCacheSize kv_cache_size(const AttentionConfig& cfg, long T);

}  // namespace attn
