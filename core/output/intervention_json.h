#pragma once
// The CLI's JSON form of a run with interventions (run/intervention_run.h): one object,
// the same for every model family. Keys are a contract (tests outside the project read them).
//   model                 name, dtype, n_layer, n_head, n_kv_head, head_dim, n_embd, n_ctx, vocab_size
//   tokens, token_ids     the text's (or --ids')
//   layers                per layer {"heads": [{"kv_head": g, "weights": T x T}, ...]}, of the changed run
//   next_token            the changed run's 10 most probable after next_token_position: {id, token, prob}
//   next_token_position   0-based: --next-at's, else the last token's
//   baseline_next_token   the same without the intervention (with --ablate or --patch)
//   intervention          {kind: "ablate" | "patch", mode: "zero" | "mean" (ablate), heads: ["5.1", ...],
//                         positions: [P, ...] or "all", patch_tokens, patch_token_ids (patch)}
//   logit_lens            [entry][position]: the 5 most probable {id, token, prob}; entry 0 reads the
//                         embeddings, entry l + 1 block l's outputs (the last: the model's own)
//   attribution           {position, id, minus_id (or null), logit, components: [{name, value}]}:
//                         the components add up to logit (to float rounding)
//   head_effects          [layer][head]: the metric with that head alone changed, minus the baseline's
//   head_effects_metric   {kind: "prob" | "logit-diff", ids: [...], position, baseline, change:
//                         "zero" | "mean" | "patch"}
#include <ostream>

#include "run/intervention_run.h"

namespace attn {

void write_intervention_json(std::ostream& out, const InterventionRun& run);

}  // namespace attn
