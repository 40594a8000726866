#include "interventions/attribution.h"

namespace attn {

Attribution attribute_logit(const LanguageModel& model, const ModelActivations& run, int64_t position, int64_t id,
                            std::optional<int64_t> minus_id) {
    const ModelShape shape = model.shape();
    const auto t = static_cast<Eigen::Index>(position);
    // The direction in the normed stream whose dot product is the logit (or the difference).
    RowVector direction = model.unembedding(id);
    if (minus_id) direction -= model.unembedding(*minus_id);
    const RowVector whole = run.final_residual().row(t);
    const auto share = [&](const RowVector& part) { return double(model.final_norm_linear(part, whole).dot(direction)); };

    Attribution a{position, id, minus_id, 0.0, {}};
    const RowVector logits = logits_at(model, run, position);
    a.logit = double(logits(id)) - (minus_id ? double(logits(*minus_id)) : 0.0);
    for (const auto& [name, part] : run.embedding_parts) a.components.push_back({name, share(part.row(t))});
    for (int layer = 0; layer < shape.layers; ++layer) {
        const BlockActivations& b = run.blocks[static_cast<size_t>(layer)];
        const Matrix W_O = model.out_proj_weight(layer);  // heads*head_dim x d
        for (int h = 0; h < shape.heads; ++h) {
            const Eigen::Index col = Eigen::Index{h} * shape.head_dim;
            const RowVector z = b.z.block(t, col, 1, shape.head_dim);  // 1 x head_dim
            a.components.push_back({layer_head(layer, h), share(z * W_O.middleRows(col, shape.head_dim))});
        }
        if (const auto bias = model.out_proj_bias(layer))
            a.components.push_back({"attn_bias " + std::to_string(layer), share(*bias)});
        a.components.push_back({"mlp " + std::to_string(layer), share(b.mlp_out.row(t))});
    }
    if (const auto bias = model.final_norm_bias()) a.components.push_back({"norm_bias", double(bias->dot(direction))});
    return a;
}

}  // namespace attn
