#pragma once
// What the weight-split modules share: MultiHeadAttention (3.6.2) and today's variants
// built on it (grouped-query, sliding-window and multi-head latent attention, the book's
// ch04 bonus material). Each projects the inputs once; head h takes columns
// [h*hd, (h+1)*hd) of the queries and the columns of its key/value group
// g = h / (heads / groups) of the keys and values, attends causally, and out_proj mixes
// the heads' context vectors.
#include "attention/attention.h"
#include "attention/kept_stages.h"

namespace attn {

// The width of head h's slice, and how many key/value groups the module has.
int head_dim_of(const AttentionConfig& cfg);
int kv_groups_of(const AttentionConfig& cfg);
// The sliding window the variant applies (0: none).
long window_of(const AttentionConfig& cfg);
// What the module's KV cache holds after T tokens (Trace::kv_cache; the row's kv_cache).
KvCacheSize kv_cache_size(const AttentionConfig& cfg, long T);

// nn.Linear(d_in, d_out) for queries, keys and values (W_query, W_key, W_value), and
// out_proj (d_out x d_out, with bias): MultiHeadAttention's layers in its order.
void build_mha(AttentionModule& m, TorchGenerator& gen);

// Every head's projections side by side, as the module computed them.
struct SplitProjections {
    Matrix queries;  // T x (heads * hd)
    Matrix keys;     // T x (groups * hd)
    Matrix values;   // T x (groups * hd)
    std::optional<Matrix> queries_rotated;  // RoPE: what the heads attend with instead
    std::optional<Matrix> keys_rotated;
    const char* key_name = "key";      // head h's weights are W_key/W_value's columns; mla's
    const char* value_name = "value";  // W_UK/W_UV's
    std::vector<float> alibi_slopes;   // ALiBi (one per head): head h's scores fall by slope h per token back
};

// ALiBi's slope of each of `heads` heads (alibi.cpp): the paper's geometric series.
std::vector<float> alibi_slopes(int heads);

// The model stages every weight-split module shows first: out_proj's weights (W_out, b_out).
void add_out_proj(const AttentionModule& m, Trace& t);
// Each head attends with its slice of `split`; then (finish) out_proj, and the cache's
// size when the variant's class keeps one.
HeadWork attend_split_heads(const AttentionModule& m, SplitProjections split, const KeptStages& keep, Trace& t);

}  // namespace attn
