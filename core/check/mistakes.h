#pragma once
// The mistakes readers of chapter 3 (and of chapter 4's bonus classes) make, each as the
// stage it gives: computed from the user's own earlier stages (their queries, keys, values,
// weights, heads' context), so that a mistake is found at the stage where it first shows,
// whatever came before. Each is tried with the variant's own parts (gqa's groups, RoPE's
// turn, swa's window, ALiBi's bias); one the variant cannot make is not tried.
//   queries, keys,    biases although the user stated qkv_bias=False
//   values, latents:
//   weights:          dropout on the scores (before the softmax); no scaling; √d_in or √d_out
//                     for the head's √head_dim; the softmax over the wrong dimension; the
//                     mask after the softmax, not renormalised; the mask filled with 0, not
//                     −∞; the past masked instead of the future; no mask; swa's window not
//                     applied; ALiBi's bias of the wrong sign, or slopes not the paper's; keys
//                     and values swapped; queries used as keys; the heads split by view
//                     without the transpose
//   dropped_weights:  dropout left on in evaluation
//   concat:           the heads concatenated in the wrong order; the heads' context put back
//                     by view without the transpose; keys used as values
//   output:           no out_proj; out_proj applied twice; keys used as values (a class without
//                     out_proj); the wrapper's heads concatenated in the wrong order
// The wrapper's heads are modules of their own: what splits a d_out (view without the
// transpose, √d_out for √head_dim) is not tried on it; SelfAttention_v1 has no dropout to
// put on the scores.
#include <string>
#include <vector>

#include "check/recorded_attention.h"

namespace attn {

// The known mistakes that give `yours` (stage `stage`'s matrices: one a head for weights
// and dropped_weights, else one) within `tolerance`, in the catalogue's order; their words,
// e.g. "the scores divided by √d_in (√3) instead of the head's √head_dim (√2)".
std::vector<std::string> diagnose(const RecordedAttention& r, const std::string& stage, const std::vector<Matrix>& yours,
                                  double tolerance);
// The weights' part of the catalogue (weights_mistakes.cpp).
std::vector<std::string> weights_mistakes(const RecordedAttention& r, const std::vector<Matrix>& yours,
                                          double tolerance);

// Each head's columns of a T x (n * head_dim) stage (what view(b, T, n, head_dim).transpose(1, 2)
// gives), and the same stage's memory read as n x T x head_dim (view without the transpose).
std::vector<Matrix> head_columns(const Matrix& whole, int heads);
std::vector<Matrix> viewed_without_transpose(const Matrix& whole, int heads);

}  // namespace attn
