#pragma once
// Which heads matter: a metric at one position, changed by each head alone switched off
// or patched, for every head: the heatmap of layers x heads. A head of layer L needs only
// layer L from its z on and the layers after it rerun, from the kept activations of the
// run without it (TransformerLens's loop runs a whole hooked forward per head).
#include <cstdint>
#include <functional>
#include <vector>

#include "interventions/hooked_run.h"

namespace attn {

struct EffectMetric {
    enum class Kind { Prob, LogitDiff };
    Kind kind = Kind::Prob;
    int64_t id = 0, minus_id = 0;  // prob: softmax's of id; logit-diff: logit id - logit minus_id
    int64_t position = 0;          // after which token
    double of(const RowVector& logits) const;
};

// Called after each head with (heads done, heads in all); false stops the work (nothing returned).
using EffectProgress = std::function<bool(int, int)>;

// The work of head_effects in forwards of the whole model: a layer-L head reruns L's end
// and the layers after it, on average about half the model, once per head.
double head_effects_forwards(const ModelShape& shape);

// The metric with the head at `site` alone changed as `how` says (its kind, positions and
// source; its heads ignored) minus `before`, the metric of `base`, the run without it.
double head_effect(const LanguageModel& model, const ModelActivations& base, const Intervention& how,
                   const EffectMetric& metric, double before, HeadSite site);

// [layer][head]: the metric with that head alone changed as `how` says (its kind,
// positions and source; its heads ignored) minus the metric of `base`, the run without
// it. Empty when `progress` stopped it.
std::vector<std::vector<double>> head_effects(const LanguageModel& model, const ModelActivations& base,
                                              const Intervention& how, const EffectMetric& metric,
                                              const EffectProgress& progress = {});

}  // namespace attn
