#include "run/run_head_effects.h"

#include "interventions/intervention_flags.h"
#include "run/switched_off.h"

namespace attn {

std::optional<EffectMetric> head_effects_metric(const Settings& s, const ModelShape& shape, int64_t position) {
    if (!s.head_effects) return std::nullopt;
    return parse_effect_metric(*s.head_effects, shape, position);
}

HeadEffectsWork start_head_effects(ModelRun& run, const Settings& s, const EffectMetric& metric) {
    HeadEffectsWork work;
    work.model = run.model.model;
    work.metric = metric;
    work.how.kind = Intervention::Kind::Zero;
    if (s.patch_from && !s.patch_from->empty()) {
        work.how.kind = Intervention::Kind::Patch;
        work.how.source = run.patch_source ? run.patch_source : patch_source(s, run.model, run.tokens.ids.size()).run;
    }
    work.base = std::make_shared<const ModelActivations>(run_activations(*work.model, run.tokens.ids));
    work.before = metric.of(logits_at(*work.model, *work.base, metric.position));
    run.effect_metric = metric;
    run.effect_before = work.before;
    run.effects_patched = work.how.kind == Intervention::Kind::Patch;
    run.head_effects.clear();
    return work;
}

bool head_effects_step(ModelRun& run, const HeadEffectsWork& work) {
    const ModelShape shape = work.model->shape();
    const int layer = static_cast<int>(run.head_effects.size());
    if (layer >= shape.layers) return true;
    std::vector<double> effects;
    for (int h = 0; h < shape.heads; ++h)
        effects.push_back(head_effect(*work.model, *work.base, work.how, work.metric, work.before, {layer, h}));
    run.head_effects.push_back(std::move(effects));
    return static_cast<int>(run.head_effects.size()) == shape.layers;
}

}  // namespace attn
