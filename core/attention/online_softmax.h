#pragma once
// Tiled, online softmax: what FlashAttention computes. One head's weights and context
// come from its queries, keys and values one tile of keys at a time, without ever
// holding a whole row of scores: each row keeps a running maximum m and a running sum
// l of exp(score - m), and a running output O. When a tile raises a row's maximum, what
// was summed so far is rescaled by exp(m_old - m_new):
//   S   = Q · K_tileᵀ / √d_k (+ bias; masked: -inf)   T x tile
//   m'  = max(m, rowmax(S))
//   l'  = l · exp(m - m') + rowsum(exp(S - m'))
//   O'  = O · exp(m - m') + exp(S - m') · V_tile   T x d_v
// After the last tile, weights = exp(S - m) / l and context = O / l: the ordinary
// softmax and product, up to float rounding.
#include "attention/trace.h"
#include "numerics/tensor.h"

namespace attn {

struct OnlineSoftmaxInput {
    Matrix queries;  // T x d_k (rotated with RoPE)
    Matrix keys;     // S x d_k
    Matrix values;   // S x d_v
    Matrix mask;     // T x S, 1 = masked; empty for none
    Matrix bias;     // T x S, added to the scaled scores (ALiBi's position_bias); empty for none
    float scale = 1.0f;  // scores are divided by it: √d_k (1 for 3.3's simplified attention)
};

struct OnlineSoftmaxState {
    int tile = 1;              // keys per tile
    int tiles_done = 0, tiles_total = 0;
    Matrix running_max;        // T x 1: m (-inf while a row has seen only masked keys)
    Matrix running_sum;        // T x 1: l
    Matrix running_output;     // T x d_v: O, not yet divided by l
    Matrix weights_so_far;     // T x S: exp(S - m) / l over the keys seen; 0 for keys not yet seen
    Matrix context_so_far;     // T x d_v: O / l (0 for a row that has seen nothing)
    long first_key = 0, last_key = 0;  // the tile just done: keys [first_key, last_key)
};

// Head `head`'s softmax inputs as its forward used them, read from the trace: rotated
// queries and keys with RoPE, the mask, ALiBi's bias, and for 3.3's simplified attention
// (no weights, unscaled) the inputs themselves. Throws std::out_of_range when the head
// did not keep its queries, keys and values.
OnlineSoftmaxInput online_softmax_input(const Trace& trace, int head);

// The state after `tiles` tiles of `tile` keys each (clamped to the number of tiles).
// Throws ConfigError for a tile below 1 or inputs whose shapes disagree.
OnlineSoftmaxState online_softmax(const OnlineSoftmaxInput& in, int tile, int tiles);

}  // namespace attn
