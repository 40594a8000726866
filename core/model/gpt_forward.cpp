#include "model/gpt_forward.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "numerics/gemm.h"

namespace attn {

Matrix layer_norm(const Matrix& x, const LayerNormWeights& w) {
    constexpr float kEps = 1e-5f;
    Matrix out(x.rows(), x.cols());
    const auto n = static_cast<float>(x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const auto row = x.row(i).array();
        const float mean = row.sum() / n;
        const float var = (row - mean).square().sum() / n;  // unbiased=False
        const float inv = 1.0f / std::sqrt(var + kEps);
        out.row(i) = (w.scale.array() * ((row - mean) * inv) + w.shift.array()).matrix();
    }
    return out;
}

Matrix gelu(const Matrix& x) {
    const float c = std::sqrt(2.0f / static_cast<float>(M_PI));  // torch.sqrt(torch.tensor(2.0 / torch.pi))
    // Eigen's vectorised tanh, as torch's is vectorised (a T x 3072 matrix a layer).
    const auto v = x.array();
    return (0.5f * v * (1.0f + (c * (v + 0.044715f * v.cube())).tanh())).matrix();
}

namespace {

void check_ids(const GptConfig& cfg, const std::vector<int64_t>& ids) {
    if (ids.empty()) throw ConfigError("the text has no tokens");
    if (static_cast<int64_t>(ids.size()) > cfg.context_length)
        throw ConfigError("the text has " + std::to_string(ids.size()) + " tokens; the model's context_length is " +
                          std::to_string(cfg.context_length));
    for (const int64_t id : ids) check_token_id(cfg, id);
}

BlockTrace block_forward(const GptBlock& b, const Matrix& inputs, const KeptStages& keep) {
    BlockTrace t;
    t.inputs = inputs;
    t.normed1 = layer_norm(inputs, b.norm1);
    t.attention = forward(b.attention, t.normed1, nullptr, keep);
    t.residual1 = inputs + t.attention.output[0];                             // shortcut
    t.normed2 = layer_norm(t.residual1, b.norm2);
    t.ff_hidden = gelu(b.ff_in.forward(t.normed2));                            // T x 4d
    t.outputs = t.residual1 + b.ff_out.forward(t.ff_hidden);                   // T x d
    return t;
}

}  // namespace

GptTrace gpt_forward(const GptModel& model, const std::vector<int64_t>& ids, const KeptStages& keep) {
    return gpt_forward(model, ids, std::vector<KeptStages>(model.blocks.size(), keep));
}

GptTrace gpt_forward(const GptModel& model, const std::vector<int64_t>& ids, const std::vector<KeptStages>& keep) {
    if (keep.size() != model.blocks.size()) throw std::logic_error("gpt_forward: one KeptStages per block");
    check_ids(model.cfg, ids);
    GptTrace t;
    t.ids = ids;
    const auto T = static_cast<Eigen::Index>(ids.size());
    t.embeddings.resize(T, model.cfg.emb_dim);
    for (Eigen::Index i = 0; i < T; ++i) t.embeddings.row(i) = model.tok_emb.row(ids[static_cast<size_t>(i)]) + model.pos_emb.row(i);
    t.blocks.reserve(model.blocks.size());
    const Matrix* x = &t.embeddings;
    for (size_t l = 0; l < model.blocks.size(); ++l) {
        t.blocks.push_back(block_forward(model.blocks[l], *x, keep[l]));
        x = &t.blocks.back().outputs;
    }
    t.final_normed = layer_norm(*x, model.final_norm);
    t.logits = output_logits(model, t.final_normed);  // T x vocab
    return t;
}

std::vector<int64_t> generate(const GptModel& model, std::vector<int64_t> ids, int max_new_tokens,
                              TokenSampler& sampler) {
    const auto context = static_cast<size_t>(model.cfg.context_length);
    for (int n = 0; n < max_new_tokens; ++n) {
        const size_t first = ids.size() > context ? ids.size() - context : 0;
        const std::vector<int64_t> window(ids.begin() + static_cast<std::ptrdiff_t>(first), ids.end());
        const GptTrace t = gpt_forward(model, window, KeptStages::only({}));
        ids.push_back(sampler.next(t.logits.row(t.logits.rows() - 1)));
    }
    return ids;
}

std::vector<int64_t> generate_greedy(const GptModel& model, std::vector<int64_t> ids, int max_new_tokens) {
    TokenSampler argmax;  // temperature 0: draws nothing
    return generate(model, std::move(ids), max_new_tokens, argmax);
}

}  // namespace attn
