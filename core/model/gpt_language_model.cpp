// A GPT-2-shaped model (gpt_model.h) behind the model interface: the same functions, in
// the same order, as gpt_forward.cpp's block, so a run through it is gpt_forward's.
#include <cmath>
#include <string>

#include "model/gpt_forward.h"
#include "model/language_model.h"
#include "numerics/gemm.h"

namespace attn {

namespace {

class GptLanguageModel final : public LanguageModel {
public:
    explicit GptLanguageModel(std::shared_ptr<const GptModel> model) : m_(std::move(model)) {}

    ModelShape shape() const override {
        const GptConfig& c = m_->cfg;
        return {c.n_layers, c.n_heads, c.n_heads, c.emb_dim, c.vocab_size, c.context_length, c.emb_dim / c.n_heads};
    }

    std::vector<std::pair<std::string, Matrix>> embedding_parts(const std::vector<int64_t>& ids) const override {
        check_token_ids(m_->cfg, ids);
        const auto T = static_cast<Eigen::Index>(ids.size());
        Matrix embed(T, m_->cfg.emb_dim);
        for (Eigen::Index i = 0; i < T; ++i) embed.row(i) = m_->tok_emb.row(ids[static_cast<size_t>(i)]);
        return {{"embed", std::move(embed)}, {"pos_embed", m_->pos_emb.topRows(T)}};
    }

    BlockActivations block(int layer, const Matrix& inputs, const KeptStages& keep, const ZHook& hook) const override {
        const GptBlock& b = m_->blocks[static_cast<size_t>(layer)];
        BlockActivations a;
        a.inputs = inputs;
        a.attention = forward(b.attention, layer_norm(inputs, b.norm1), nullptr, keep);
        a.z = a.attention.model.at("concat");  // the heads side by side, before out_proj
        if (!hook) {  // out_proj's product as the forward made it
            a.attn_out = std::move(a.attention.output[0]);
            after_attention(b, a);
            return a;
        }
        hook(layer, a.z);
        finish_block(layer, a);
        return a;
    }

    void finish_block(int layer, BlockActivations& a) const override {
        const GptBlock& b = m_->blocks[static_cast<size_t>(layer)];
        a.attn_out = linear_product(a.z, b.attention.out_proj->weight, Transpose::No, b.attention.out_proj->bias);
        after_attention(b, a);
    }

    Matrix final_norm(const Matrix& x) const override { return layer_norm(x, m_->final_norm); }

    RowVector final_norm_linear(const RowVector& part, const RowVector& whole) const override {
        const auto n = static_cast<float>(whole.size());
        const float mean = whole.sum() / n;
        const float var = (whole.array() - mean).square().sum() / n;
        const float inv = 1.0f / std::sqrt(var + 1e-5f);  // layer_norm's
        return (m_->final_norm.scale.array() * ((part.array() - part.mean()) * inv)).matrix();
    }

    std::optional<RowVector> final_norm_bias() const override { return m_->final_norm.shift; }

    Matrix logits(const Matrix& normed) const override { return output_logits(*m_, normed); }

    RowVector unembedding(int64_t id) const override {
        check_token_id(m_->cfg, id);
        return m_->out_head ? RowVector(m_->out_head->col(id).transpose()) : RowVector(m_->tok_emb.row(id));
    }

    Matrix out_proj_weight(int layer) const override {
        return m_->blocks[static_cast<size_t>(layer)].attention.out_proj->weight;  // d x d
    }

    std::optional<RowVector> out_proj_bias(int layer) const override {
        return m_->blocks[static_cast<size_t>(layer)].attention.out_proj->bias;
    }

private:
    // residual1, the feed-forward and the outputs, as gpt_forward.cpp's mlp_forward.
    static void after_attention(const GptBlock& b, BlockActivations& a) {
        a.residual1 = a.inputs + a.attn_out;                                       // shortcut
        a.mlp_out = b.ff_out.forward(gelu(b.ff_in.forward(layer_norm(a.residual1, b.norm2))));  // T x d
        a.outputs = a.residual1 + a.mlp_out;
    }

    std::shared_ptr<const GptModel> m_;
};

}  // namespace

std::unique_ptr<LanguageModel> gpt_language_model(std::shared_ptr<const GptModel> model) {
    return std::make_unique<GptLanguageModel>(std::move(model));
}

}  // namespace attn
