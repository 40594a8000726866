#include "interventions/logit_lens.h"

namespace attn {

std::vector<std::vector<TokenProbability>> read_residual(const LanguageModel& model, const Matrix& residual, int top) {
    const Matrix logits = model.logits(model.final_norm(residual));  // R x vocab
    std::vector<std::vector<TokenProbability>> rows;
    for (Eigen::Index r = 0; r < logits.rows(); ++r) rows.push_back(top_next_tokens(logits.row(r), top));
    return rows;
}

LogitLens logit_lens(const LanguageModel& model, const ModelActivations& run, int top) {
    LogitLens lens;
    for (int after = -1; after < static_cast<int>(run.blocks.size()); ++after)
        lens.push_back(read_residual(model, run.residual(after), top));
    return lens;
}

}  // namespace attn
