#include "interventions/hooked_run.h"

#include <algorithm>
#include <stdexcept>

namespace attn {

bool Intervention::changes(int layer) const {
    return kind != Kind::None &&
           std::any_of(heads.begin(), heads.end(), [&](const HeadSite& s) { return s.layer == layer; });
}

void intervene(const Intervention& how, int layer, int head_dim, Matrix& z) {
    const Eigen::Index T = z.rows();
    for (const HeadSite& site : how.heads) {
        if (site.layer != layer) continue;
        const Eigen::Index col = Eigen::Index{site.head} * head_dim;
        auto head = z.middleCols(col, head_dim);  // T x head_dim
        const RowVector mean = how.kind == Intervention::Kind::Mean ? RowVector(head.colwise().mean()) : RowVector();
        const auto change = [&](Eigen::Index t) {
            switch (how.kind) {
            case Intervention::Kind::Zero: head.row(t).setZero(); break;
            case Intervention::Kind::Mean: head.row(t) = mean; break;
            case Intervention::Kind::Patch:
                head.row(t) = how.source->blocks[static_cast<size_t>(layer)].z.block(t, col, 1, head_dim);
                break;
            case Intervention::Kind::None: break;
            }
        };
        if (how.positions.empty())
            for (Eigen::Index t = 0; t < T; ++t) change(t);
        for (const int64_t t : how.positions) change(static_cast<Eigen::Index>(t));
    }
}

ModelActivations run_activations(const LanguageModel& model, const std::vector<int64_t>& ids, const Intervention& how,
                                 const KeptStages& keep) {
    const ModelShape shape = model.shape();
    if (how.kind == Intervention::Kind::Patch &&
        (!how.source || how.source->ids.size() != ids.size() || how.source->blocks.size() != static_cast<size_t>(shape.layers)))
        throw std::logic_error("run_activations: a patch needs a source run of as many tokens");
    ModelActivations run;
    run.ids = ids;
    run.embedding_parts = model.embedding_parts(ids);
    run.embeddings = run.embedding_parts[0].second;
    for (size_t p = 1; p < run.embedding_parts.size(); ++p) run.embeddings += run.embedding_parts[p].second;
    run.blocks.reserve(static_cast<size_t>(shape.layers));
    const ZHook hook = [&](int layer, Matrix& z) { intervene(how, layer, shape.head_dim, z); };
    for (int layer = 0; layer < shape.layers; ++layer)
        run.blocks.push_back(model.block(layer, run.residual(layer - 1), keep, how.changes(layer) ? hook : ZHook()));
    return run;
}

RowVector logits_at(const LanguageModel& model, const ModelActivations& run, int64_t position) {
    const Matrix normed = model.final_norm(run.final_residual().row(static_cast<Eigen::Index>(position)));  // 1 x d
    return model.logits(normed).row(0);
}

std::string layer_head(int layer, int head) { return std::to_string(layer) + "." + std::to_string(head); }

}  // namespace attn
