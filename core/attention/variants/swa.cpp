// MultiHeadAttentionWithSWA (ch04/06_swa): MultiHeadAttention's layers, and a causal
// mask that also hides keys W or more tokens back: query i sees keys i - W + 1 .. i.
// Its cache keeps the last W keys and values.
#include "attention/variants/weight_split.h"

namespace attn {

void swa(const AttentionModule& m, const Matrix& x, const Matrix*, const KeptStages& keep, Trace& t) {
    add_out_proj(m, t);
    const Projections& p = m.projections[0];
    const Matrix queries = project(x, p.W_query, p.b_query);  // T x d_out
    const Matrix keys = project(x, p.W_key, p.b_key);         // T x d_out
    const Matrix values = project(x, p.W_value, p.b_value);   // T x d_out
    attend_split_heads(m, SplitProjections{queries, keys, values}, keep, t);  // the window: window_of(cfg)
}

}  // namespace attn
