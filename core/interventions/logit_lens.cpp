#include "interventions/logit_lens.h"

namespace attn {

LogitLens logit_lens(const LanguageModel& model, const ModelActivations& run, int top) {
    LogitLens lens;
    for (int after = -1; after < static_cast<int>(run.blocks.size()); ++after) {
        const Matrix logits = model.logits(model.final_norm(run.residual(after)));  // T x vocab
        auto& entry = lens.emplace_back();
        for (Eigen::Index t = 0; t < logits.rows(); ++t) entry.push_back(top_next_tokens(logits.row(t), top));
    }
    return lens;
}

}  // namespace attn
