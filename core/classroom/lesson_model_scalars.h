#pragma once
// The placeholders of lessons on a trained model's heads (a view whose Run has a ModelRun:
// --model). Every value comes from the run on screen, so a student who types another
// sentence reads their own scores:
//   {layer}                         the detail layer, counted from 0 (L in L.H)
//   {prev_score} {dup_score} {induction_score} {sink_score}   the step's head's head-type
//                                   scores on the text (head_scores.h), 2 decimals; with a
//                                   prefix another head of the same layer: {head3.prev_score};
//                                   {stripe_score} the induction stripe (the rows with an
//                                   earlier copy only), as the tiles name induction heads
//   {chance_prev} {chance_dup} {chance_induction} {chance_sink}   what uniform causal
//                                   attention scores on the same tokens
//   {best_prev_head} {best_prev_score} (also dup, induction, sink, stripe)   the model's head with the
//                                   highest score of that type, as "L.H", and its score
//   {next_token[i]} {next_prob[i]}  the i-th most probable next token after the last
//                                   position (quoted as the app shows it) and its probability
//                                   in percent, 2 decimals
//   {baseline_token[i]} {baseline_prob[i]}   the same without the step's change (--ablate,
//                                   --patch): what the model said before the heads changed
//   {lens_token[e]} {lens_prob[e]}  the logit lens (--logit-lens) at the shown position: the
//                                   most probable token read from the embeddings (e = 0) or
//                                   after block e - 1 (e = layers: the model's own output)
//   {top_effect_head} {top_effect}  the heads' effects (--head-effects): the head whose change
//                                   moved the metric most, either way, and by how much (signed;
//                                   a probability in percentage points)
#include <string>

#include "run/pipeline.h"

namespace attn {

// Whether `name` is one of the scalars above (without an index or head prefix).
bool is_model_scalar(const std::string& name);
// Whether it may take a headN. prefix ({head3.prev_score}).
bool is_model_head_scalar(const std::string& name);
// Whether it takes an index: next_token, next_prob, baseline_token, baseline_prob, lens_token, lens_prob.
bool is_model_indexed_scalar(const std::string& name);

// The value of `name` in `run` for head `head` of the detail layer (or entry `index`).
// Throws LessonError when the view is no model's or the value does not exist.
std::string model_scalar(const std::string& name, int head, int index, const Run& run);

}  // namespace attn
