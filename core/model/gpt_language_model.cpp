// A GPT-2-shaped model (gpt_model.h) behind the model interface: the same functions, in
// the same order, as gpt_forward.cpp's block, so a run through it is gpt_forward's; its
// runs are gpt_forward's steps (GptForward), its cache chapter 4's (kv_cache.h), its
// tokens GPT-2's BPE.
#include <cmath>
#include <limits>
#include <string>

#include "model/gpt_forward.h"
#include "model/kv_cache.h"
#include "model/language_model.h"
#include "numerics/gemm.h"
#include "text/gpt2_tokenizer.h"

namespace attn {

namespace {

// gpt_forward a step at a time: a block a step, then the logits (in blocks of about
// GptForward::kLogitProducts multiply-adds where there are many rows).
class GptTracedForward final : public TracedForward {
public:
    GptTracedForward(const GptModel& model, std::vector<int64_t> ids, std::vector<KeptStages> keep,
                     std::vector<Eigen::Index> logit_rows, const ZHook& hook)
        : blocks_(static_cast<int>(model.blocks.size())),
          forward_(model, std::move(ids), std::move(keep), GptForward::kLogitProducts, std::move(logit_rows)) {
        forward_.hook_z(hook);
    }
    int steps() const override { return forward_.steps(); }
    int steps_done() const override { return forward_.steps_done(); }
    std::string next_step() const override {
        const int done = steps_done(), parts = steps() - blocks_;
        if (done < blocks_) return "layer " + std::to_string(done + 1) + " of " + std::to_string(blocks_);
        return parts == 1 ? "the logits" : "the logits, part " + std::to_string(done - blocks_ + 1) + " of " + std::to_string(parts);
    }
    void step() override { forward_.step(); }
    ModelTrace take() override { return forward_.take(); }

private:
    int blocks_;
    GptForward forward_;
};

// Chapter 4's cache (kv_cache.h): each layer's heads side by side, head h's keys and
// values in columns h * head_dim on, context_length rows of which the first T are filled.
class GptKeyValueCache final : public KeyValueCache {
public:
    GptKeyValueCache(std::shared_ptr<const GptModel> model, GptCache cache) : model_(std::move(model)), cache_(std::move(cache)) {}
    std::unique_ptr<KeyValueCache> copy() const override { return std::make_unique<GptKeyValueCache>(model_, cache_); }
    const std::vector<int64_t>& ids() const override { return cache_.ids; }
    int64_t bytes() const override {
        return int64_t{model_->cfg.n_layers} * 2 * static_cast<int64_t>(cache_.ids.size()) * model_->cfg.emb_dim * 4;
    }
    TokenStep append(int64_t id) override { return append_token(*model_, cache_, id); }
    void add_keys_values(size_t layer, size_t head, HeadTrace& out) const override {
        const auto T = static_cast<Eigen::Index>(cache_.ids.size());
        const auto hd = static_cast<Eigen::Index>(model_->cfg.emb_dim / model_->cfg.n_heads);
        const auto col = static_cast<Eigen::Index>(head) * hd;
        out.add("keys", cache_.keys[layer].block(0, col, T, hd), Axis::Tokens);
        out.add("values", cache_.values[layer].block(0, col, T, hd), Axis::Tokens);
    }
    void truncate(size_t tokens) override { cache_.ids.resize(tokens); }  // its rows past them are written again
    const GptCache& cache() const { return cache_; }

private:
    std::shared_ptr<const GptModel> model_;
    GptCache cache_;
};

// What a run of the model on `tokens` tokens (+ generated) costs, before it starts.
WorkEstimate gpt_run_work(const GptConfig& cfg, int64_t tokens, int generate, bool detail) {
    const double T = static_cast<double>(tokens), d = cfg.emb_dim, L = cfg.n_layers, H = cfg.n_heads;
    const double V = cfg.vocab_size, S = T * T;
    WorkEstimate w;
    // Kept: every head's weights, each block's seven T x d activations and its T x 4d
    // hidden layer, the logits; the detail layer's heads keep every stage (about ten
    // T x T matrices and their projections). Temporaries: one layer's scores per head.
    const double weights = L * H * S;
    const double detail_numbers = detail ? H * (10 * S + 6 * T * d / H + 3 * d * d / H) : 0;
    // The logits: the last position's and --next-at's (run_model computes no others).
    const double floats = weights + L * (11 * T * d) + 2 * V + detail_numbers + 2 * H * S;
    w.bytes = 4 * floats;
    const double params = V * d + L * 12 * d * d, block_params = L * 12 * d * d;
    const double flops = 2 * T * block_params + 2 * 2 * V * d + L * 4 * S * d +
                         2 * generate * (params + L * 2 * (T + generate) * d);
    w.forward_seconds = flops / kEstimatedFlopsPerSecond;
    w.seconds = w.forward_seconds;
    w.stage_numbers = {{"weights", weights}};
    if (detail) w.stage_numbers.push_back({"detail", detail_numbers});
    w.lower = "the text length (" + std::to_string(tokens) + " tokens)";
    return w;
}

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

    const FamilyNames& names() const override {
        static const FamilyNames names{"LayerNorm", "context length", "GPT-2 tokens", TokenizerKind::Gpt2, "GPT-2"};
        return names;
    }

    Tokenized encode(const std::string& text) const override { return gpt2_tokenizer().encode(text); }

    std::string token_text(int64_t id) const override {
        if (id >= 0 && id < Gpt2Tokenizer::kVocabSize) return gpt2_tokenizer().token_display(id);
        return "<" + std::to_string(id) + ">";
    }

    bool is_special(int64_t id) const override { return id == Gpt2Tokenizer::kEndOfText; }

    WorkEstimate run_work(int64_t tokens, int generate, bool detail) const override {
        return gpt_run_work(m_->cfg, tokens, generate, detail);
    }

    std::vector<std::string> cache_stages() const override { return {"weights", "keys", "values"}; }

    std::unique_ptr<TracedForward> traced_forward(std::vector<int64_t> ids, std::vector<KeptStages> keep,
                                                  std::vector<Eigen::Index> logit_rows, const ZHook& hook) const override {
        return std::make_unique<GptTracedForward>(*m_, std::move(ids), std::move(keep), std::move(logit_rows), hook);
    }

    RowVector logits_at(const ModelTrace& trace, Eigen::Index position) const override {
        return attn::logits_at(*m_, trace, position);
    }

    std::unique_ptr<KeyValueCache> cache_from(const ModelTrace& trace) const override {
        return std::make_unique<GptKeyValueCache>(m_, cache_from_trace(*m_, trace));
    }

    std::vector<int64_t> generate(const std::vector<int64_t>& ids, int n, TokenSampler& sampler) const override {
        std::vector<int64_t> all = generate_cached(*m_, ids, n, sampler);
        return {all.begin() + static_cast<std::ptrdiff_t>(ids.size()), all.end()};
    }

    std::vector<int64_t> generate_after(const KeyValueCache& cache, const RowVector& logits, int n,
                                        TokenSampler& sampler) const override {
        const GptCache& own = dynamic_cast<const GptKeyValueCache&>(cache).cache();
        std::vector<int64_t> all = generate_from_cache(*m_, own, logits, n, sampler);
        return {all.begin() + static_cast<std::ptrdiff_t>(own.ids.size()), all.end()};
    }

    bool generation_slides() const override { return true; }
    const GptModel* gpt_weights() const override { return m_.get(); }

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
