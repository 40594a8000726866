// SelfAttention_v1 (3.4.2), and seed 004's SelfAttention(d_in, d_out_kq, d_out_v) and
// its MultiHeadAttentionWrapper: torch.rand weights, one module per head.
#include "attention/variants/stacked_heads.h"

namespace attn {

void build_self_v1(AttentionModule& m, TorchGenerator& gen) {
    for (int h = 0; h < m.cfg.heads; ++h)
        m.projections.push_back(rand_projections(gen, m.d_in, m.cfg.d_out, m.cfg.d_out_v));
}

HeadWork self_v1(const AttentionModule& m, const Matrix& x, const Matrix*, const KeptStages& keep, Trace& t) {
    return stacked_heads_forward(m, x, x, Axis::Tokens, keep, t);
}

}  // namespace attn
