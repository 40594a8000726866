// Seed 004's CrossAttention: the queries come from the text, the keys and values from a
// second one (--text2), or from torch.rand(kv_len, d_in) drawn right after the weights.
#include "attention/variants/stacked_heads.h"

namespace attn {

void build_cross(AttentionModule& m, TorchGenerator& gen) {
    // 004: every module is built before the second input is drawn
    for (int h = 0; h < m.cfg.heads; ++h)
        m.projections.push_back(rand_projections(gen, m.d_in, m.cfg.d_out, m.cfg.d_out_v));
    m.random_kv = torch_rand(gen, m.cfg.kv_len, m.d_in);
}

HeadWork cross(const AttentionModule& m, const Matrix& x, const Matrix* x2, const KeptStages& keep, Trace& t) {
    t.model.add("inputs2", x2 ? *x2 : *m.random_kv, Axis::KeyTokens);
    return stacked_heads_forward(m, x, t.model.at("inputs2"), Axis::KeyTokens, keep, t);
}

}  // namespace attn
