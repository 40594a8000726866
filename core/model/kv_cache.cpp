#include "model/kv_cache.h"

#include <cmath>
#include <string>

#include "attention/head_forward.h"
#include "model/gpt_forward.h"
#include "numerics/gemm.h"

namespace attn {

GptCache empty_cache(const GptModel& model) {
    GptCache c;
    const auto layers = model.blocks.size();
    c.keys.assign(layers, Matrix(model.cfg.context_length, model.cfg.emb_dim));
    c.values.assign(layers, Matrix(model.cfg.context_length, model.cfg.emb_dim));
    return c;
}

GptCache cache_from_trace(const GptModel& model, const ModelTrace& trace) {
    GptCache c = empty_cache(model);
    c.ids = trace.ids;
    const auto T = static_cast<Eigen::Index>(trace.ids.size());
    for (size_t l = 0; l < trace.blocks.size(); ++l) {
        const auto& heads = trace.blocks[l].attention.heads;
        Eigen::Index col = 0;
        for (const HeadTrace& head : heads) {
            const Matrix& k = head.at("keys");  // T x head_dim
            c.keys[l].block(0, col, T, k.cols()) = k;
            c.values[l].block(0, col, T, k.cols()) = head.at("values");
            col += k.cols();
        }
    }
    return c;
}

namespace {

// The block's MultiHeadAttention for the new row at `pos`, its keys and values cached.
Matrix attend_row(const AttentionModule& att, const Matrix& normed, Matrix& keys, Matrix& values,
                     Eigen::Index pos, std::vector<RowVector>& weights) {
    const Projections& p = att.projections[0];
    const Matrix query = project(normed, p.W_query, p.b_query);  // 1 x d
    keys.row(pos) = project(normed, p.W_key, p.b_key);
    values.row(pos) = project(normed, p.W_value, p.b_value);
    const Eigen::Index T = pos + 1, H = att.cfg.heads, hd = att.cfg.d_out / att.cfg.heads;
    const auto root_d_k = static_cast<float>(std::sqrt(static_cast<double>(hd)));
    Matrix concat(1, att.cfg.d_out);
    weights.assign(static_cast<size_t>(H), RowVector());
    for (Eigen::Index h = 0; h < H; ++h) {
        // (1 x hd) @ (hd x T) -> 1 x T: the new query sees every cached key (the causal
        // mask hides only later tokens, and there are none yet)
        RowVector w = matmul_transposed(query.middleCols(h * hd, hd), keys.block(0, h * hd, T, hd));
        softmax_row(w.data(), T, T, root_d_k, pos);
        concat.middleCols(h * hd, hd) = matmul(w, values.block(0, h * hd, T, hd));  // (1 x T) @ (T x hd)
        weights[static_cast<size_t>(h)] = std::move(w);
    }
    return att.out_proj->forward(concat);
}

}  // namespace

TokenStep append_token(const GptModel& model, GptCache& cache, int64_t id) {
    const GptConfig& cfg = model.cfg;
    const auto pos = static_cast<Eigen::Index>(cache.ids.size());
    if (pos >= cfg.context_length)
        throw ConfigError("the context is full: the model's context_length is " + std::to_string(cfg.context_length));
    check_token_id(cfg, id);
    TokenStep step;
    step.weights.resize(model.blocks.size());
    Matrix x = model.tok_emb.row(id) + model.pos_emb.row(pos);  // 1 x d
    for (size_t l = 0; l < model.blocks.size(); ++l) {
        const GptBlock& b = model.blocks[l];
        const Matrix residual1 = x + attend_row(b.attention, layer_norm(x, b.norm1), cache.keys[l], cache.values[l], pos,
                                                step.weights[l]);
        x = residual1 + b.ff_out.forward(gelu(b.ff_in.forward(layer_norm(residual1, b.norm2))));
    }
    step.logits = output_logits(model, layer_norm(x, model.final_norm));  // 1 x vocab
    cache.ids.push_back(id);
    return step;
}

namespace {

// A full forward of `ids` keeping each head's keys and values: the cache it leaves, and
// the logits after its last token.
GptCache prefill(const GptModel& model, const std::vector<int64_t>& ids, RowVector& logits) {
    const auto last = static_cast<Eigen::Index>(ids.size()) - 1;
    const ModelTrace t = gpt_forward(model, ids, std::vector<KeptStages>(model.blocks.size(), KeptStages::only({"keys", "values"})),
                                   {last});
    logits = t.logits.row(0);
    return cache_from_trace(model, t);
}

}  // namespace

std::vector<int64_t> generate_from_cache(const GptModel& model, GptCache cache, RowVector logits,
                                         int max_new_tokens, TokenSampler& sampler) {
    const auto context = static_cast<size_t>(model.cfg.context_length);
    std::vector<int64_t> ids = cache.ids;
    for (int n = 0; n < max_new_tokens; ++n) {
        ids.push_back(sampler.next(logits));
        if (n + 1 == max_new_tokens) break;
        if (cache.ids.size() < context) {
            logits = append_token(model, cache, ids.back()).logits;
        } else {  // the window moved: every position changed
            cache = prefill(model, std::vector<int64_t>(ids.end() - static_cast<std::ptrdiff_t>(context), ids.end()),
                            logits);
        }
    }
    return ids;
}

std::vector<int64_t> generate_cached(const GptModel& model, std::vector<int64_t> ids, int max_new_tokens,
                                     TokenSampler& sampler) {
    if (ids.empty()) throw ConfigError("the text has no tokens");
    if (max_new_tokens <= 0) return ids;
    const auto context = static_cast<size_t>(model.cfg.context_length);
    const size_t first = ids.size() > context ? ids.size() - context : 0;
    RowVector logits;
    GptCache cache = prefill(model, std::vector<int64_t>(ids.begin() + static_cast<std::ptrdiff_t>(first), ids.end()),
                             logits);
    const std::vector<int64_t> window_and_new = generate_from_cache(model, std::move(cache), std::move(logits),
                                                                    max_new_tokens, sampler);
    ids.resize(first);  // the cache held only the window: the tokens before it go in front
    ids.insert(ids.end(), window_and_new.begin(), window_and_new.end());
    return ids;
}

std::vector<int64_t> generate_cached(const GptModel& model, std::vector<int64_t> ids, int max_new_tokens) {
    TokenSampler argmax;  // temperature 0: draws nothing
    return generate_cached(model, std::move(ids), max_new_tokens, argmax);
}

}  // namespace attn
