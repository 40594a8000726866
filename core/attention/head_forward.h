#pragma once
// One head of scaled dot-product attention, from its queries, keys and values to its
// context vectors, for every batch element:
//   attn_scores = queries @ keys^T              (T x d_k) @ (d_k x S) -> T x S
//   weights     = softmax(mask(attn_scores / sqrt(d_k)))
//   context     = dropout(weights) @ values     (T x S) @ (S x d_v)   -> T x d_v
// Scaling, masking and the softmax are one pass over each row. Under a causal mask, row
// i sees keys 0..i only (with a sliding window, i - W + 1..i), so only that part of each
// product is multiplied. What is not
// kept (KeptStages) is computed in blocks of rows and dropped, so that a long text's
// output does not hold a T x S matrix per head.
#include <vector>

#include "attention/kept_stages.h"
#include "attention/trace.h"
#include "numerics/gemm.h"
#include "numerics/torch_random.h"

namespace attn {

struct HeadJob {
    ConstMatrixView queries;  // T x d_k (unused when the weights are given)
    ConstMatrixView keys;     // S x d_k
    ConstMatrixView values;   // S x d_v
    bool causal = false;      // triu(ones(T, S), 1) masked: row i sees keys 0..i
    Axis key_axis = Axis::Tokens;
    bool dropout_stages = false;  // the variant shows dropout_mask and dropped_weights
    // One per batch element: its dropout draws, or null when nothing is dropped
    // (p = 0, or evaluation mode): dropped weights are the weights.
    std::vector<const DropoutDraws*> draws;
    // > 0: a sliding window on top of the causal mask: row i sees keys i - window + 1 .. i
    // only, and only those are multiplied (the cost grows with T * window, not T * S).
    Eigen::Index window = 0;
    // > 0: ALiBi's bias -alibi_slope * (i - j) is added to the scaled score of query i and
    // key j (the position_bias stage), before the mask.
    float alibi_slope = 0.0f;
};

// The mask as a T x S matrix, 1 where masked: triu(ones, 1) when causal, and with a
// window also the keys window or more tokens back (i - j >= window).
Matrix attention_mask(Eigen::Index T, Eigen::Index S, bool causal, Eigen::Index window);

// Records in `trace` what `keep` asks of head `head` (scores, scaled_scores, mask,
// masked_scores, weights, dropout_mask, dropped_weights, context: the first batch
// element's) and returns every batch element's context (T x d_v each). With `weights`
// given (a rerun after a change of dropout), they are not computed again. With
// `preview`, a head whose weights are not kept leaves their block means there
// (KeptStages::preview_side).
std::vector<Matrix> attend_head(const HeadJob& job, const Matrix* weights, int head, const KeptStages& keep,
                                HeadTrace& trace, Matrix* preview = nullptr);

// One row of softmax(scores / root_d_k) in place, as torch computes it in float (divide,
// subtract the row's maximum, exp, multiply by 1 / sum) over the row's first `seen`
// elements; the rest of the row's `width` (masked, -inf) become 0. -inf scores give 0.
// Throws ConfigError when every element is -inf (torch would give NaN).
// With an ALiBi slope, element k (key first_key + k of query row_index) gets its bias
// after the division.
void softmax_row(float* row, Eigen::Index seen, Eigen::Index width, float root_d_k, Eigen::Index row_index,
                 float alibi_slope = 0.0f, Eigen::Index first_key = 0);

// ALiBi's bias of query i and key j: -slope * (i - j), as torch computes -slopes * distance.
inline float alibi_bias(float slope, Eigen::Index i, Eigen::Index j) {
    return -slope * static_cast<float>(i - j);
}

}  // namespace attn
