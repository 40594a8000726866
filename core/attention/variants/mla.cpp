// MultiHeadLatentAttention (ch04/05_mla): the inputs go down to one latent row per token
// (W_DKV), the only thing its cache keeps, and every head's keys and values come up
// from the latents (W_UK, W_UV).
#include "attention/variants/weight_split.h"

namespace attn {

void build_mla(AttentionModule& m, TorchGenerator& gen) {
    const AttentionConfig& cfg = m.cfg;
    const int latent = latent_dim_of(cfg);
    // The class's order: W_query, W_DKV, W_UK, W_UV, out_proj.
    const Linear q = torch_linear(gen, m.d_in, cfg.d_out, cfg.qkv_bias);
    m.latent_down = torch_linear(gen, m.d_in, latent, cfg.qkv_bias);
    const Linear up_k = torch_linear(gen, latent, cfg.d_out, cfg.qkv_bias);
    const Linear up_v = torch_linear(gen, latent, cfg.d_out, cfg.qkv_bias);
    m.projections.push_back(Projections{q.weight, up_k.weight, up_v.weight, q.bias, up_k.bias, up_v.bias});
    m.out_proj = torch_linear(gen, cfg.d_out, cfg.d_out, true);
}

HeadWork mla(const AttentionModule& m, const Matrix& x, const Matrix*, const KeptStages& keep, Trace& t) {
    add_out_proj(m, t);
    t.model.add("W_DKV", m.latent_down->weight);
    if (m.latent_down->bias) t.model.add("b_DKV", *m.latent_down->bias);
    const Matrix latents = project(x, m.latent_down->weight, m.latent_down->bias);  // T x latent_dim
    t.model.add("latents", latents);
    const Projections& p = m.projections[0];
    SplitProjections split;
    split.queries = project(x, p.W_query, p.b_query);       // T x d_out
    split.keys = project(latents, p.W_key, p.b_key);        // T x d_out
    split.values = project(latents, p.W_value, p.b_value);  // T x d_out
    split.key_name = "UK";
    split.value_name = "UV";
    return attend_split_heads(m, std::move(split), keep, t);
}

}  // namespace attn
