#pragma once
// The logit lens: what the model would say after each block, read by applying the final
// norm and the output head to the residual stream there.
#include <vector>

#include "interventions/hooked_run.h"
#include "model/next_token.h"

namespace attn {

// [entry][position]: the `top` most probable tokens, most probable first. Entry 0 reads
// the embeddings, entry l + 1 the outputs of block l; the last is the model's own output.
using LogitLens = std::vector<std::vector<std::vector<TokenProbability>>>;
LogitLens logit_lens(const LanguageModel& model, const ModelActivations& run, int top = 5);

// One entry of the lens: each row of `residual` (R x d, rows of one residual stream)
// through the final norm and the output head, its `top` most probable tokens.
std::vector<std::vector<TokenProbability>> read_residual(const LanguageModel& model, const Matrix& residual,
                                                         int top = 5);

}  // namespace attn
