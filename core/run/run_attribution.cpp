#include "run/run_attribution.h"

#include "interventions/attribution.h"
#include "interventions/intervention_flags.h"
#include "run/switched_off.h"

namespace attn {

std::vector<int64_t> attribute_ids(const Settings& s, const ModelShape& shape) {
    return s.attribute ? parse_vocab_ids("--attribute", *s.attribute, shape, 2) : std::vector<int64_t>{};
}

void attribute_run(ModelRun& run, const std::vector<int64_t>& ids) {
    if (ids.empty()) return;
    const LanguageModel* model = run.model.model.get();
    const ModelActivations activations = run_activations(*model, run.tokens.ids, run_intervention(run));
    run.attribution = attribute_logit(*model, activations, run.next_position, ids[0],
                                      ids.size() > 1 ? std::optional<int64_t>(ids[1]) : std::nullopt);
}

}  // namespace attn
