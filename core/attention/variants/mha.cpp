// MultiHeadAttention with weight splits (3.6.2): one projection each for queries, keys
// and values, split into heads; then out_proj. MultiHeadAttentionWithSWA (ch04/06_swa)
// is the same forward: its row's window column makes attend_split_heads hide the keys W
// or more tokens back (query i sees keys i - W + 1 .. i), and its cache keeps the last W.
#include "attention/variants/weight_split.h"

namespace attn {

HeadWork mha(const AttentionModule& m, const Matrix& x, const Matrix*, const KeptStages& keep, Trace& t) {
    add_out_proj(m, t);
    const Projections& p = m.projections[0];
    SplitProjections split;
    split.queries = project(x, p.W_query, p.b_query);  // T x d_out
    split.keys = project(x, p.W_key, p.b_key);         // T x d_out
    split.values = project(x, p.W_value, p.b_value);   // T x d_out
    return attend_split_heads(m, std::move(split), keep, t);
}

}  // namespace attn
