#pragma once
// Heads switched off in a model run (Settings::ablate, the app's tiles): which, the hook
// that does it in the traced forwards, and the next tokens with every head on beside.
#include <cstdint>
#include <vector>

#include "interventions/hooked_run.h"
#include "model/z_hook.h"
#include "run/model_run.h"

namespace attn {

// Settings::ablate as the heads a run switches off, in layer, head order, checked against
// the model's shape (ArgsError naming --ablate); refused beside --generate, which runs
// through the KV cache (InputError).
std::vector<HeadSite> switched_off_heads(const Settings& s, const ModelShape& shape);
// The hook that sets those heads' z to zero (interventions/hooked_run.h's intervene).
ZHook switch_off_hook(const std::vector<HeadSite>& heads, int head_dim);
// The next tokens after `position` of run's tokens with every head on: the same forward
// without the hook, keeping nothing (either family).
std::vector<TokenProbability> baseline_next_tokens(const ModelRun& run, int64_t position, const Sampling& how);

}  // namespace attn
