#include "interventions/head_effects.h"

#include <cmath>

namespace attn {

double EffectMetric::of(const RowVector& logits) const {
    if (kind == Kind::LogitDiff) return double(logits(id)) - double(logits(minus_id));
    const float top = logits.maxCoeff();  // torch.softmax's: exp(x - max) / sum
    const double sum = (logits.array() - top).exp().sum();
    return std::exp(double(logits(id) - top)) / sum;
}

double head_effects_forwards(const ModelShape& shape) { return shape.heads * (shape.layers + 1) / 2.0; }

double head_effect(const LanguageModel& model, const ModelActivations& base, const Intervention& how,
                   const EffectMetric& metric, double before, HeadSite site) {
    const ModelShape shape = model.shape();
    Intervention one = how;
    one.heads = {site};
    BlockActivations changed;
    changed.inputs = base.blocks[static_cast<size_t>(site.layer)].inputs;
    changed.z = base.blocks[static_cast<size_t>(site.layer)].z;
    intervene(one, site.layer, shape.head_dim, changed.z);
    model.finish_block(site.layer, changed);
    Matrix x = std::move(changed.outputs);
    const KeptStages none = KeptStages::only({});
    for (int next = site.layer + 1; next < shape.layers; ++next) x = model.block(next, x, none, {}).outputs;
    const Matrix normed = model.final_norm(x.row(static_cast<Eigen::Index>(metric.position)));
    return metric.of(model.logits(normed).row(0)) - before;
}

std::vector<std::vector<double>> head_effects(const LanguageModel& model, const ModelActivations& base,
                                              const Intervention& how, const EffectMetric& metric,
                                              const EffectProgress& progress) {
    const ModelShape shape = model.shape();
    const double before = metric.of(logits_at(model, base, metric.position));
    std::vector<std::vector<double>> effects(static_cast<size_t>(shape.layers),
                                             std::vector<double>(static_cast<size_t>(shape.heads)));
    for (int layer = 0; layer < shape.layers; ++layer)
        for (int h = 0; h < shape.heads; ++h) {
            effects[static_cast<size_t>(layer)][static_cast<size_t>(h)] =
                head_effect(model, base, how, metric, before, {layer, h});
            if (progress && !progress(layer * shape.heads + h + 1, shape.layers * shape.heads)) return {};
        }
    return effects;
}

}  // namespace attn
