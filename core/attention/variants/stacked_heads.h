#pragma once
// The chapter 3 modules that stack one module per head (SelfAttention_v1, _v2,
// CausalAttention, MultiHeadAttentionWrapper, seed 004's SelfAttention and
// CrossAttention): each head has its own W_query, W_key and W_value, projects the
// inputs itself and attends; the heads' context vectors are concatenated.
#include "attention/attention.h"
#include "attention/kept_stages.h"

namespace attn {

// SelfAttention_v1 / 004's SelfAttention and CrossAttention: torch.rand weights.
Projections rand_projections(TorchGenerator& gen, int d_in, int d_out, int d_out_v);
// SelfAttention_v2 / CausalAttention: three nn.Linear layers, built in this order.
Projections linear_projections(TorchGenerator& gen, int d_in, int d_out, bool bias);

// Every head module's forward over the queries' inputs x (T x d_in) and the keys' and
// values' inputs kv_input (S x d_in: x itself, or cross-attention's second text).
// x and kv_input stay where they are until the work's finish() has run.
HeadWork stacked_heads_forward(const AttentionModule& m, const Matrix& x, const Matrix& kv_input, Axis key_axis,
                               const KeptStages& keep, Trace& t);

}  // namespace attn
