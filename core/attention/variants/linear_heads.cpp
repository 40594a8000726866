// SelfAttention_v2 (3.4.2), CausalAttention (3.5.3) and the MultiHeadAttentionWrapper of
// CausalAttention heads (3.6.1): nn.Linear projections, one module per head. What tells
// them apart is their row: the mask built in, and dropout.
#include "attention/variants/stacked_heads.h"

namespace attn {

void build_linear_heads(AttentionModule& m, TorchGenerator& gen) {
    for (int h = 0; h < m.cfg.heads; ++h)
        m.projections.push_back(linear_projections(gen, m.d_in, m.cfg.d_out, m.cfg.qkv_bias));
}

HeadWork linear_heads(const AttentionModule& m, const Matrix& x, const Matrix*, const KeptStages& keep, Trace& t) {
    return stacked_heads_forward(m, x, x, Axis::Tokens, keep, t);
}

}  // namespace attn
