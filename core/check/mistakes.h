#pragma once
// The mistakes readers of chapter 3 make, each as the stage it gives: computed from the
// user's own earlier stages (their queries, keys, values, weights, heads' context), so
// that a mistake is found at the stage where it first shows, whatever came before.
//   weights:          no scaling; √d_in or √d_out for the head's √head_dim; the softmax over
//                     the wrong dimension; the mask after the softmax, not renormalised; the
//                     mask filled with 0, not −∞; the past masked instead of the future; no
//                     mask; keys and values swapped; queries used as keys; the heads split by
//                     view without the transpose
//   dropped_weights:  dropout left on in evaluation
//   concat:           the heads concatenated in the wrong order; the heads' context put back
//                     by view without the transpose; keys used as values
//   output:           no out_proj; out_proj applied twice; keys used as values (a single head)
#include <string>
#include <vector>

#include "check/recorded_attention.h"

namespace attn {

// The known mistakes that give `yours` (stage `stage`'s matrices: one a head for weights
// and dropped_weights, else one) within `tolerance`, in the catalogue's order; their words,
// e.g. "the scores divided by √d_in (√3) instead of the head's √head_dim (√2)".
std::vector<std::string> diagnose(const RecordedAttention& r, const std::string& stage, const std::vector<Matrix>& yours,
                                  double tolerance);

// Each head's columns of a T x d_out stage (what view(b, T, heads, head_dim).transpose(1, 2)
// gives), and the same stage's memory read as heads x T x head_dim (view without the transpose).
std::vector<Matrix> head_columns(const Matrix& whole, int heads);
std::vector<Matrix> viewed_without_transpose(const Matrix& whole, int heads);

}  // namespace attn
