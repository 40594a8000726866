#include "run/intervention_run.h"

#include "numerics/gemm.h"
#include "run/model_run.h"

namespace attn {

WorkEstimate estimate_intervention_work(const LoadedModel& model, const InterventionFlags& flags, int64_t tokens) {
    const ModelShape shape = model_shape(model);
    WorkEstimate w = model.model->run_work(tokens, 0, false);
    const double T = static_cast<double>(tokens), d = shape.d_model, V = static_cast<double>(shape.vocab_size);
    const double L = shape.layers;
    const bool changes = flags.ablate || flags.patch, source = flags.patch_from || flags.patch_from_ids;
    // Runs held at once: the baseline, the changed run, the patch's source (each keeps
    // every activation; the changed run every head's weights too).
    const double runs = 1 + (changes ? 1 : 0) + (source ? 1 : 0);
    double forwards = runs;
    if (flags.head_effects) forwards += head_effects_forwards(shape);
    double lens_flops = 0;
    if (flags.logit_lens) {
        lens_flops = 2 * (L + 1) * T * d * V;
        w.bytes += 4 * T * V;  // one entry's logits at a time
    }
    w.bytes *= runs;
    w.forward_seconds *= forwards;
    w.seconds = w.forward_seconds + lens_flops / kEstimatedFlopsPerSecond;
    return w;
}

InterventionRun run_interventions(const Settings& s, const InterventionFlags& flags, const LoadedModel& model,
                                  const Budget& budget) {
    InterventionRun run;
    run.model = model;
    run.tokens = model_input_tokens(s, model);
    const ModelShape shape = model_shape(model);
    const auto T = static_cast<int64_t>(run.tokens.ids.size());
    if (T > shape.context_length)
        throw InputError("the text has " + std::to_string(T) + " tokens; the model reads at most " +
                         std::to_string(shape.context_length));
    run.next_position = s.next_at ? *s.next_at : T - 1;
    if (run.next_position < 0 || run.next_position >= T)
        throw InputError("--next-at " + std::to_string(run.next_position) + ": the text has " + std::to_string(T) +
                         " tokens (positions 0.." + std::to_string(T - 1) + ")");
    run.intervention = parse_intervention(flags, shape, T);
    std::optional<std::vector<int64_t>> attribute;
    if (flags.attribute) attribute = parse_vocab_ids("--attribute", *flags.attribute, shape, 2);
    if (flags.head_effects) run.metric = parse_effect_metric(*flags.head_effects, shape, run.next_position);
    if (flags.patch_from || flags.patch_from_ids) {
        Settings source = s;
        source.ids = flags.patch_from_ids;
        if (flags.patch_from) source.text = *flags.patch_from;
        run.patch_tokens = model_input_tokens(source, model);
        if (run.patch_tokens->ids.size() != run.tokens.ids.size())
            throw InputError("--patch-from has " + std::to_string(run.patch_tokens->ids.size()) +
                             (run.patch_tokens->ids.size() == 1 ? " token" : " tokens") + " and the text " +
                             std::to_string(T) + ": a patch needs texts of as many tokens");
    }
    check_budget(estimate_intervention_work(model, flags, T), budget);

    const LanguageModel* lm = model.model.get();
    if (run.patch_tokens) run.intervention.source = std::make_shared<ModelActivations>(run_activations(*lm, run.patch_tokens->ids));
    const bool changes = !run.intervention.heads.empty();
    // The baseline keeps every head's weights when it is the run the JSON shows.
    const KeptStages weights = KeptStages::only({"weights"});
    run.baseline = std::make_shared<ModelActivations>(
        run_activations(*lm, run.tokens.ids, {}, changes ? KeptStages::only({}) : weights));
    run.changed = changes ? std::make_shared<ModelActivations>(run_activations(*lm, run.tokens.ids, run.intervention, weights))
                          : run.baseline;
    run.baseline_next_tokens = next_tokens_of(logits_at(*lm, *run.baseline, run.next_position), {});
    run.next_tokens = changes ? next_tokens_of(logits_at(*lm, *run.changed, run.next_position), {}) : run.baseline_next_tokens;
    if (flags.logit_lens) run.lens = logit_lens(*lm, *run.changed);
    if (attribute)
        run.attribution = attribute_logit(*lm, *run.changed, run.next_position, (*attribute)[0],
                                          attribute->size() > 1 ? std::optional<int64_t>((*attribute)[1]) : std::nullopt);
    if (run.metric) {
        run.metric_baseline = run.metric->of(logits_at(*lm, *run.baseline, run.next_position));
        run.head_effects = head_effects(*lm, *run.baseline, run.intervention, *run.metric);
    }
    return run;
}

}  // namespace attn
