#pragma once
// Heads switched off (Settings::ablate) or patched from another text (Settings::patch,
// patch_from) in a model run, the app's tiles: which, the hook that does it in the traced
// forwards, and the next tokens with every head on beside.
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
// The run of Settings::patch_from (ids where s.ids is set), every activation kept, and its
// tokens. Throws InputError where it has another number of tokens than `tokens`.
struct PatchSource {
    Tokenized tokens;
    std::shared_ptr<const ModelActivations> run;
};
PatchSource patch_source(const Settings& s, const LoadedModel& model, size_t tokens);
// Settings::patch's heads, and the run of Settings::patch_from whose z they take, into
// run.patched, run.patch_tokens and run.patch_source (run.tokens and run.switched_off
// read already). Throws ArgsError for a head the model lacks, InputError for no other
// text, one of another length, heads switched off too (one change a run, as in the CLI),
// or --generate beside.
void read_patch(const Settings& s, const LoadedModel& model, ModelRun& run);
// What the run changes: its switched-off heads (Kind::Zero), its patched heads (Kind::Patch
// from patch_source), or nothing (Kind::None).
Intervention run_intervention(const ModelRun& run);
// The hook that makes that change in a traced forward (interventions/hooked_run.h's
// intervene); empty when nothing changes.
ZHook run_z_hook(const ModelRun& run, int head_dim);
// Whether the run changes any head (its next tokens then have a baseline beside).
inline bool changes_heads(const ModelRun& run) { return !run.switched_off.empty() || !run.patched.empty(); }
// The next tokens after `position` of run's tokens with every head on: the same forward
// without the hook, keeping nothing (either family).
std::vector<TokenProbability> baseline_next_tokens(const ModelRun& run, int64_t position, const Sampling& how);

}  // namespace attn
