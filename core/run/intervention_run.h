#pragma once
// A model run with what core/interventions computes: heads switched off or patched from
// another text, the logit lens, a logit split into its parts, every head's effect on a
// metric. One path for every model family (model/language_model.h): what the CLI prints
// with --ablate, --patch, --logit-lens, --attribute or --head-effects
// (output/intervention_json.h).
#include <memory>
#include <optional>
#include <vector>

#include "interventions/attribution.h"
#include "interventions/head_effects.h"
#include "interventions/intervention_flags.h"
#include "interventions/logit_lens.h"
#include "model/model_source.h"
#include "model/next_token.h"
#include "run/memory_budget.h"
#include "settings/settings.h"
#include "text/tokenizer.h"

namespace attn {

struct InterventionRun {
    LoadedModel model;
    Tokenized tokens;
    int64_t next_position = 0;  // 0-based: --next-at's, else the last token's
    // The run without the intervention, and with it (the same object when there is none).
    // The changed run keeps every head's weights.
    std::shared_ptr<const ModelActivations> baseline, changed;
    Intervention intervention;           // Kind::None: nothing changed
    std::optional<Tokenized> patch_tokens;  // the patch's source text
    std::vector<TokenProbability> next_tokens, baseline_next_tokens;  // the 10 most probable, changed and not
    std::optional<LogitLens> lens;
    std::optional<Attribution> attribution;  // of the changed run
    std::optional<EffectMetric> metric;      // --head-effects
    double metric_baseline = 0.0;
    std::vector<std::vector<double>> head_effects;  // [layer][head]
};

// What the flags cost before anything runs: the forwards they need (a head's effect
// reruns its layer's end and the layers after it) and the logit lens's products.
WorkEstimate estimate_intervention_work(const LoadedModel& model, const InterventionFlags& flags, int64_t tokens);

// Runs `flags` on s's text (or --ids) through `model`. Throws ArgsError/InputError with one
// line: a head, layer, position or id the model or the text lacks, a patch source of
// another length, --next-at past the text, work over the budget.
InterventionRun run_interventions(const Settings& s, const InterventionFlags& flags, const LoadedModel& model,
                                  const Budget& budget);

}  // namespace attn
