#pragma once
// A model run's logit split into its parts (Settings::attribute, "ID" or "ID,ID2"): what
// the embeddings, every head, each projection's bias and every MLP add to the logit of ID
// (minus ID2's) after the position whose next tokens are shown, through the same
// attribute_logit the CLI's --attribute prints (interventions/attribution.h).
#include <vector>

#include "run/model_run.h"

namespace attn {

// The ids Settings::attribute names, checked against the model's vocabulary (ArgsError
// naming --attribute); none when unset.
std::vector<int64_t> attribute_ids(const Settings& s, const ModelShape& shape);
// run.attribution: the run's own forward again through the model interface, every
// activation kept, with its switched-off heads' z zero, as the run's.
void attribute_run(ModelRun& run, const std::vector<int64_t>& ids);

}  // namespace attn
