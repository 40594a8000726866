#include "run/switched_off.h"

#include <algorithm>

#include "interventions/intervention_flags.h"
#include "model/llama_forward.h"
#include "model/language_model.h"

namespace attn {

std::vector<HeadSite> switched_off_heads(const Settings& s, const ModelShape& shape) {
    if (!s.ablate) return {};
    if (s.generate > 0)
        throw InputError("generating with heads switched off is not joined yet (generation runs through the KV "
                         "cache): switch them back on, or generate 0");
    std::vector<HeadSite> heads = parse_head_sites("--ablate", *s.ablate, shape);
    std::sort(heads.begin(), heads.end());
    return heads;
}

PatchSource patch_source(const Settings& s, const LoadedModel& model, size_t tokens) {
    Settings other = s;  // the other text, in the text's form: ids where the text is ids (--ids)
    if (s.ids) other.ids = s.patch_from.value_or("");
    else other.text = s.patch_from.value_or("");
    PatchSource source{model_input_tokens(other, model), nullptr};
    if (source.tokens.ids.size() != tokens)
        throw InputError("the patch's text has " + std::to_string(source.tokens.ids.size()) +
                         (source.tokens.ids.size() == 1 ? " token" : " tokens") + " and the text " + std::to_string(tokens) +
                         ": a patch needs texts of as many tokens");
    source.run = std::make_shared<const ModelActivations>(run_activations(*model.model, source.tokens.ids));
    return source;
}

void read_patch(const Settings& s, const LoadedModel& model, ModelRun& run) {
    if (!s.patch) return;
    if (s.generate > 0)
        throw InputError("generating with heads patched is not joined yet (generation runs through the KV cache): "
                         "stop patching, or generate 0");
    if (!s.patch_from || s.patch_from->empty())
        throw InputError("patching heads needs the other text they are taken from (--patch-from TEXT)");
    const ModelShape shape = model_shape(model);
    std::vector<HeadSite> heads = parse_head_sites("--patch", *s.patch, shape);
    std::sort(heads.begin(), heads.end());
    if (!run.switched_off.empty())  // as the CLI's --ablate and --patch: one intervention a run
        throw InputError("heads are switched off: switch them back on to patch heads (one change a run)");
    PatchSource source = patch_source(s, model, run.tokens.ids.size());
    run.patch_source = std::move(source.run);
    run.patch_tokens = std::move(source.tokens);
    run.patched = std::move(heads);
}

Intervention run_intervention(const ModelRun& run) {
    if (!run.switched_off.empty()) return Intervention{Intervention::Kind::Zero, run.switched_off, {}, nullptr};
    if (!run.patched.empty()) return Intervention{Intervention::Kind::Patch, run.patched, {}, run.patch_source};
    return {};
}

ZHook run_z_hook(const ModelRun& run, int head_dim) {
    if (!changes_heads(run)) return {};
    return [how = run_intervention(run), head_dim](int layer, Matrix& z) { intervene(how, layer, head_dim, z); };
}

std::vector<TokenProbability> baseline_next_tokens(const ModelRun& run, int64_t position, const Sampling& how) {
    const LanguageModel& m = *run.model.model;
    const std::unique_ptr<TracedForward> forward =
        m.traced_forward(run.tokens.ids, std::vector<KeptStages>(static_cast<size_t>(m.shape().layers), KeptStages::only({})),
                         {static_cast<Eigen::Index>(position)});
    while (!forward->done()) forward->step();
    return next_tokens_of(m.logits_at(forward->take(), position), how);
}

}  // namespace attn
