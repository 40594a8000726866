#pragma once
// Which heads matter, in a model run (Settings::head_effects, the app's heatmap): the
// metric after the run's next position with each head alone switched off, or patched from
// Settings::patch_from where that is given, minus the metric of the run without any change
// (interventions/head_effects.h: each head reruns its layer's end and the layers after it).
// Computed a layer at a time, so that the window draws between layers.
#include <memory>
#include <optional>

#include "interventions/head_effects.h"
#include "model/language_model.h"
#include "run/model_run.h"
#include "settings/settings.h"

namespace attn {

// Settings::head_effects's metric after `position`, checked against the model (ArgsError
// naming --head-effects); nothing when not asked.
std::optional<EffectMetric> head_effects_metric(const Settings& s, const ModelShape& shape, int64_t position);

// What a run's head effects are computed from.
struct HeadEffectsWork {
    std::shared_ptr<const LanguageModel> model;
    std::shared_ptr<const ModelActivations> base;  // the run without any change, every activation kept
    Intervention how;                              // Kind::Zero, or Kind::Patch with its source
    EffectMetric metric;
    double before = 0.0;  // the metric of base
};

// The work's start: the run without any change, and the other text's run when
// s.patch_from is given (InputError where it has another number of tokens). Sets
// run.effect_metric, effect_before, effects_patched; run.head_effects starts empty.
HeadEffectsWork start_head_effects(ModelRun& run, const Settings& s, const EffectMetric& metric);
// The next layer's heads into run.head_effects; true when every layer is in.
bool head_effects_step(ModelRun& run, const HeadEffectsWork& work);

}  // namespace attn
