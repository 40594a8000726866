// A Llama-family model (llama_checkpoint.h) behind the model interface: the same
// functions, in the same order, as llama_forward.cpp's layer, so a run through it is
// llama_forward's. Each block converts its layer's weights into the model's workspace
// under its lock, as llama_forward does. Its runs are llama_forward (one step), its cache
// llama_cache.h's (the key/value heads'), its tokens its folder's tokenizer.json's.
#include <cmath>
#include <filesystem>
#include <mutex>
#include <string>

#include "model/language_model.h"
#include "model/llama_cache.h"
#include "model/llama_forward.h"
#include "numerics/gemm.h"  // kEstimatedFlopsPerSecond

namespace attn {

namespace {

// llama_forward in one step (it is not split into steps: a page runs small models).
class LlamaTracedForward final : public TracedForward {
public:
    LlamaTracedForward(const LlamaCheckpoint& model, std::vector<int64_t> ids, std::vector<KeptStages> keep,
                       std::vector<Eigen::Index> logit_rows, ZHook hook)
        : model_(model), ids_(std::move(ids)), keep_(std::move(keep)), logit_rows_(std::move(logit_rows)), hook_(std::move(hook)) {
        check_llama_ids(model.config(), ids_);
    }
    int steps() const override { return 1; }
    int steps_done() const override { return done_ ? 1 : 0; }
    std::string next_step() const override { return "the forward"; }
    void step() override {
        if (done_) return;
        trace_ = llama_forward(model_, ids_, keep_, hook_, logit_rows_);
        done_ = true;
    }
    ModelTrace take() override { return std::move(trace_); }

private:
    const LlamaCheckpoint& model_;
    std::vector<int64_t> ids_;
    std::vector<KeptStages> keep_;
    std::vector<Eigen::Index> logit_rows_;
    ZHook hook_;
    ModelTrace trace_;
    bool done_ = false;
};

// llama_cache.h's: each layer's key/value heads side by side, exactly T rows; query head
// h reads key/value head h / group_size (repeat_interleave).
class LlamaKeyValueCache final : public KeyValueCache {
public:
    LlamaKeyValueCache(std::shared_ptr<const LlamaCheckpoint> model, LlamaCache cache)
        : model_(std::move(model)), cache_(std::move(cache)) {}
    std::unique_ptr<KeyValueCache> copy() const override { return std::make_unique<LlamaKeyValueCache>(model_, cache_); }
    const std::vector<int64_t>& ids() const override { return cache_.ids; }
    int64_t bytes() const override { return cache_.bytes(); }
    TokenStep append(int64_t id) override { return llama_append_token(*model_, cache_, id); }
    void add_keys_values(size_t layer, size_t head, HeadTrace& out) const override {
        const LlamaConfig& c = model_->config();
        const Eigen::Index col = static_cast<Eigen::Index>(head) / c.group_size() * c.head_dim;
        out.add("keys_rotated", cache_.keys[layer].middleCols(col, c.head_dim), Axis::Tokens);
        out.add("values", cache_.values[layer].middleCols(col, c.head_dim), Axis::Tokens);
    }
    void truncate(size_t tokens) override {
        cache_.ids.resize(tokens);
        for (Matrix& m : cache_.keys) m.conservativeResize(static_cast<Eigen::Index>(tokens), m.cols());
        for (Matrix& m : cache_.values) m.conservativeResize(static_cast<Eigen::Index>(tokens), m.cols());
    }
    const LlamaCache& cache() const { return cache_; }

private:
    std::shared_ptr<const LlamaCheckpoint> model_;
    LlamaCache cache_;
};

// Memory and time of a forward over T tokens keeping every head's weights (and nothing
// else of the heads).
WorkEstimate llama_run_work(const LlamaConfig& c, int64_t T) {
    const double t = static_cast<double>(T), d = c.hidden_size, hd = c.head_dim, H = c.heads, G = c.kv_heads,
                 ff = c.intermediate_size, L = c.layers, V = static_cast<double>(c.vocab_size);
    const double layer_weights = d * (H + 2 * G) * hd + H * hd * d + 3 * d * ff;  // floats, converted a layer at a time
    // Per layer kept: every head's T x T weights, the residual stream's activations, the
    // projections and the MLP's hidden (x4 bytes).
    const double kept_per_layer = H * t * t + t * (6 * d + 2 * (H + 2 * G) * hd + 2 * ff);
    const double temporaries = 4 * t * t + t * (H + 2 * G) * hd * 2 + t * ff * 2;  // one head's scores, a layer's
    WorkEstimate w;
    w.bytes = 4.0 * (layer_weights + L * kept_per_layer + temporaries + 4096 * d);
    const double flops = L * (2 * t * layer_weights + 4 * H * t * t * hd) + 2 * V * d;
    w.forward_seconds = flops / kEstimatedFlopsPerSecond + 4.0 * L * layer_weights / 1e9;  // conversion: ~1 GB/s
    w.seconds = w.forward_seconds;
    w.lower = "the number of tokens (" + std::to_string(T) + ")";
    return w;
}

// generate's `n` ids after a cache and the logits after its last token, one cached step
// a token, each the sampler's pick.
std::vector<int64_t> generate_from(const LlamaCheckpoint& model, LlamaCache cache, RowVector next, int n,
                                   TokenSampler& sampler) {
    std::vector<int64_t> generated;
    for (int i = 0; i < n; ++i) {
        generated.push_back(sampler.next(next));
        if (i + 1 < n) next = llama_append_token(model, cache, generated.back()).logits;
    }
    return generated;
}

class LlamaLanguageModel final : public LanguageModel {
public:
    LlamaLanguageModel(std::shared_ptr<const LlamaCheckpoint> model, std::shared_ptr<const HfTokenizer> tokenizer)
        : m_(std::move(model)), tokenizer_(std::move(tokenizer)), final_norm_(m_->final_norm()) {}

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

    const FamilyNames& names() const override {
        static const FamilyNames names{"RMSNorm", "max_position_embeddings", "tokens", TokenizerKind::TokenizerJson,
                                      "the model's tokenizer.json"};
        return names;
    }

    Tokenized encode(const std::string& text) const override {
        if (tokenizer_) return tokenizer_->encode(text);
        std::error_code ec;
        const std::string& dir = m_->dir();
        const bool sentencepiece = std::filesystem::is_regular_file(dir + "/tokenizer.model", ec);
        throw ModelFileError(dir + " has no tokenizer.json attnscope reads to tokenize the text" +
                             (sentencepiece ? " (its tokenizer.model is SentencePiece's, which attnscope does not read)" : "") +
                             ": give the token ids with --ids 1,2,3");
    }

    std::string token_text(int64_t id) const override {
        if (tokenizer_ && id >= 0 && id < tokenizer_->vocab_size()) {
            try {
                return tokenizer_->token_display(id);
            } catch (const TokenizeError&) {  // an id the tokenizer has no token for
            }
        }
        return "<" + std::to_string(id) + ">";
    }

    bool is_special(int64_t id) const override { return tokenizer_ && tokenizer_->is_special(id); }

    WorkEstimate run_work(int64_t tokens, int generate, bool) const override {
        // The forward over the tokens, then each generated token one cached step: a token's
        // products, with every layer's weights converted again (llama_append_token).
        WorkEstimate w = llama_run_work(m_->config(), tokens);
        w.seconds += generate * llama_run_work(m_->config(), 1).forward_seconds;
        return w;
    }

    std::vector<std::string> cache_stages() const override { return {"weights", "keys_rotated", "values"}; }

    std::unique_ptr<TracedForward> traced_forward(std::vector<int64_t> ids, std::vector<KeptStages> keep,
                                                  std::vector<Eigen::Index> logit_rows, const ZHook& hook) const override {
        return std::make_unique<LlamaTracedForward>(*m_, std::move(ids), std::move(keep), std::move(logit_rows), hook);
    }

    RowVector logits_at(const ModelTrace& trace, Eigen::Index position) const override {
        return llama_logits_at(*m_, trace, position);
    }

    std::unique_ptr<KeyValueCache> cache_from(const ModelTrace& trace) const override {
        return std::make_unique<LlamaKeyValueCache>(m_, llama_cache_from_trace(m_->config(), trace));
    }

    std::vector<int64_t> generate(const std::vector<int64_t>& ids, int n, TokenSampler& sampler) const override {
        if (n <= 0) return {};
        const ModelTrace prompt = llama_forward(*m_, ids, KeptStages::only({"keys_rotated", "values"}));
        return generate_from(*m_, llama_cache_from_trace(m_->config(), prompt), prompt.logits.bottomRows(1), n, sampler);
    }

    std::vector<int64_t> generate_after(const KeyValueCache& cache, const RowVector& logits, int n,
                                        TokenSampler& sampler) const override {
        return generate_from(*m_, dynamic_cast<const LlamaKeyValueCache&>(cache).cache(), logits, n, sampler);
    }

    bool generation_slides() const override { return false; }
    const LlamaCheckpoint* llama_weights() const override { return m_.get(); }

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
    std::shared_ptr<const HfTokenizer> tokenizer_;
    RowVector final_norm_;
};

}  // namespace

std::unique_ptr<LanguageModel> llama_language_model(std::shared_ptr<const LlamaCheckpoint> model,
                                                    std::shared_ptr<const HfTokenizer> tokenizer) {
    return std::make_unique<LlamaLanguageModel>(std::move(model), std::move(tokenizer));
}

}  // namespace attn
