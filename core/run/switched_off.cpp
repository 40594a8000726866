#include "run/switched_off.h"

#include <algorithm>

#include "interventions/intervention_flags.h"
#include "model/llama_forward.h"

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

ZHook switch_off_hook(const std::vector<HeadSite>& heads, int head_dim) {
    if (heads.empty()) return {};
    Intervention off;
    off.kind = Intervention::Kind::Zero;
    off.heads = heads;
    return [off, head_dim](int layer, Matrix& z) { intervene(off, layer, head_dim, z); };
}

std::vector<TokenProbability> baseline_next_tokens(const ModelRun& run, int64_t position, const Sampling& how) {
    const std::vector<int64_t>& ids = run.tokens.ids;
    if (run.model.llama) {
        const LlamaTrace baseline = llama_forward(*run.model.llama, ids, KeptStages::only({}));
        return next_tokens_of(llama_logits_at(*run.model.llama, baseline, position), how);
    }
    const GptModel& m = *run.model.model;
    const GptTrace baseline =
        gpt_forward(m, ids, std::vector<KeptStages>(m.blocks.size(), KeptStages::only({})), {static_cast<Eigen::Index>(position)});
    return next_tokens_of(baseline.logits.row(0), how);
}

}  // namespace attn
