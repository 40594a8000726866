// A Llama-family model (llama_checkpoint.h) behind the model interface: the same
// functions, in the same order, as llama_forward.cpp's layer, so a run through it is
// llama_forward's. Each block converts its layer's weights into the model's workspace
// under its lock, as llama_forward does.
#include <cmath>
#include <mutex>
#include <string>

#include "model/language_model.h"
#include "model/llama_forward.h"

namespace attn {

namespace {

class LlamaLanguageModel final : public LanguageModel {
public:
    explicit LlamaLanguageModel(std::shared_ptr<const LlamaCheckpoint> model)
        : m_(std::move(model)), final_norm_(m_->final_norm()) {}

    ModelShape shape() const override {
        const LlamaConfig& c = m_->config();
        return {c.layers, c.heads, c.kv_heads, c.hidden_size, c.vocab_size, c.max_positions, c.head_dim};
    }

    std::vector<std::pair<std::string, Matrix>> embedding_parts(const std::vector<int64_t>& ids) const override {
        check_llama_ids(m_->config(), ids);
        return {{"embed", m_->embeddings(ids)}};
    }

    BlockActivations block(int layer, const Matrix& inputs, const KeptStages& keep, const ZHook& hook) const override {
        const LlamaConfig& c = m_->config();
        const RopeTables rope = rope_tables(inputs.rows(), c.head_dim, c.rope_theta, c.rope_scaling);
        BlockActivations a;
        a.inputs = inputs;
        LlamaCheckpoint::Workspace& workspace = m_->workspace();
        const std::lock_guard<std::mutex> hold(workspace.lock);
        LlamaLayer& w = workspace.layer;
        m_->layer(layer, w);
        a.z = llama_heads(c, w, rms_norm(inputs, w.input_norm, c.rms_norm_eps), rope, keep, a.attention);  // T x H*hd
        if (hook) hook(layer, a.z);
        rest_of_layer(w, a);
        return a;
    }

    void finish_block(int layer, BlockActivations& a) const override {
        LlamaCheckpoint::Workspace& workspace = m_->workspace();
        const std::lock_guard<std::mutex> hold(workspace.lock);
        m_->layer(layer, workspace.layer);
        rest_of_layer(workspace.layer, a);
    }

    Matrix final_norm(const Matrix& x) const override { return rms_norm(x, final_norm_, m_->config().rms_norm_eps); }

    RowVector final_norm_linear(const RowVector& part, const RowVector& whole) const override {
        const float variance = whole.squaredNorm() / static_cast<float>(whole.size());
        const float inv = 1.0f / std::sqrt(variance + static_cast<float>(m_->config().rms_norm_eps));  // rms_norm's
        return (final_norm_.array() * (part.array() * inv)).matrix();
    }

    std::optional<RowVector> final_norm_bias() const override { return std::nullopt; }

    Matrix logits(const Matrix& normed) const override {
        Matrix out(normed.rows(), m_->config().vocab_size);
        for (Eigen::Index r = 0; r < normed.rows(); ++r) out.row(r) = m_->logits(normed.row(r));  // from the file
        return out;
    }

    RowVector unembedding(int64_t id) const override { return m_->head_row(id); }

    Matrix out_proj_weight(int layer) const override {
        LlamaCheckpoint::Workspace& workspace = m_->workspace();
        const std::lock_guard<std::mutex> hold(workspace.lock);
        m_->layer(layer, workspace.layer);
        return workspace.layer.W_out.transpose();  // stored [d, heads*hd], used as z @ W^T
    }

    std::optional<RowVector> out_proj_bias(int) const override { return std::nullopt; }

private:
    // o_proj, the residual, the MLP: llama_forward's layer after its heads.
    void rest_of_layer(const LlamaLayer& w, BlockActivations& a) const {
        const double eps = m_->config().rms_norm_eps;
        a.attn_out = linear(a.z, w.W_out);                                         // o_proj: T x d
        a.residual1 = a.inputs + a.attn_out;
        a.mlp_out = linear(swiglu_hidden(w, rms_norm(a.residual1, w.post_attention_norm, eps)), w.W_down);  // T x d
        a.outputs = a.residual1 + a.mlp_out;
    }

    std::shared_ptr<const LlamaCheckpoint> m_;
    RowVector final_norm_;
};

}  // namespace

std::unique_ptr<LanguageModel> llama_language_model(std::shared_ptr<const LlamaCheckpoint> model) {
    return std::make_unique<LlamaLanguageModel>(std::move(model));
}

}  // namespace attn
