// GroupedQueryAttention (ch04/04_gqa), with llama3.py's rotary position embeddings
// when --rope is on: heads / kv_groups query heads share each key/value group, so the
// keys and values are kv_groups * head_dim wide. With one group it is multi-query
// attention.
#include "attention/rope.h"
#include "attention/variants/weight_split.h"

namespace attn {

void build_gqa(AttentionModule& m, TorchGenerator& gen) {
    const AttentionConfig& cfg = m.cfg;
    const int kv_width = cfg.kv_groups * (cfg.d_out / cfg.heads);
    // The class builds W_key and W_value of the groups' width first.
    const Linear k = torch_linear(gen, m.d_in, kv_width, cfg.qkv_bias);
    const Linear v = torch_linear(gen, m.d_in, kv_width, cfg.qkv_bias);
    const Linear q = torch_linear(gen, m.d_in, cfg.d_out, cfg.qkv_bias);
    m.projections.push_back(Projections{q.weight, k.weight, v.weight, q.bias, k.bias, v.bias});
    m.out_proj = torch_linear(gen, cfg.d_out, cfg.d_out, false);
}

HeadWork gqa(const AttentionModule& m, const Matrix& x, const Matrix*, const KeptStages& keep, Trace& t) {
    const AttentionConfig& cfg = m.cfg;
    add_out_proj(m, t);
    const Projections& p = m.projections[0];
    SplitProjections split;
    split.queries = project(x, p.W_query, p.b_query);  // T x d_out
    split.keys = project(x, p.W_key, p.b_key);         // T x (kv_groups * hd)
    split.values = project(x, p.W_value, p.b_value);   // T x (kv_groups * hd)
    // RoPE after the head split, before the groups are shared (llama3.py).
    if (cfg.rope) {
        const int hd = head_dim_of(cfg);
        const RopeTables rope = rope_tables(x.rows(), hd, cfg.rope_base);
        t.model.add("rope_angles", rope.angles);
        split.queries_rotated = apply_rope_to_heads(split.queries, cfg.heads, hd, rope);
        split.keys_rotated = apply_rope_to_heads(split.keys, kv_groups_of(cfg), hd, rope);
    }
    return attend_split_heads(m, std::move(split), keep, t);
}

}  // namespace attn
