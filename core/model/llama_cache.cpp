#include "model/llama_cache.h"

#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>

#include "attention/head_forward.h"
#include "attention/rope.h"
#include "numerics/gemm.h"

namespace attn {

namespace {

// One more row at the bottom of a cache (T x width -> T+1 x width).
void append_row(Matrix& cache, const Matrix& row) {
    cache.conservativeResize(cache.rows() + 1, row.cols());
    cache.row(cache.rows() - 1) = row.row(0);
}

}  // namespace

int64_t LlamaCache::bytes() const {
    int64_t floats = 0;
    for (size_t l = 0; l < keys.size(); ++l) floats += keys[l].size() + values[l].size();
    return 4 * floats;
}

LlamaCache llama_cache_from_trace(const LlamaConfig& c, const LlamaTrace& t) {
    LlamaCache cache;
    cache.ids = t.ids;
    const auto T = static_cast<Eigen::Index>(t.ids.size());
    for (const LlamaBlockTrace& b : t.blocks) {
        Matrix keys(T, Eigen::Index{c.kv_heads} * c.head_dim), values(T, Eigen::Index{c.kv_heads} * c.head_dim);
        for (int g = 0; g < c.kv_heads; ++g) {  // group g's first query head kept them
            const HeadTrace& head = b.attention.heads.at(static_cast<size_t>(g * c.group_size()));
            keys.middleCols(g * c.head_dim, c.head_dim) = head.at("keys_rotated");
            values.middleCols(g * c.head_dim, c.head_dim) = head.at("values");
        }
        cache.keys.push_back(std::move(keys));
        cache.values.push_back(std::move(values));
    }
    return cache;
}

LlamaCache llama_prefill(const LlamaCheckpoint& model, const std::vector<int64_t>& ids, RowVector& logits) {
    const LlamaTrace t = llama_forward(model, ids, KeptStages::only({"keys_rotated", "values"}));
    logits = t.last_logits;
    return llama_cache_from_trace(model.config(), t);
}

LlamaTokenStep llama_append_token(const LlamaCheckpoint& model, LlamaCache& cache, int64_t id) {
    const LlamaConfig& c = model.config();
    const int H = c.heads, G = c.kv_heads, hd = c.head_dim;
    const auto p = static_cast<Eigen::Index>(cache.ids.size());  // the new token's position
    if (p >= c.max_positions)
        throw ModelFileError("the model reads at most " + std::to_string(c.max_positions) + " tokens (max_position_embeddings)");
    Matrix x = model.embeddings({id});  // 1 x d; checks the id
    if (cache.keys.empty()) {  // an empty cache: every layer's, no rows yet
        cache.keys.assign(static_cast<size_t>(c.layers), Matrix(0, Eigen::Index{G} * hd));
        cache.values = cache.keys;
    }
    if (cache.keys.size() != static_cast<size_t>(c.layers) || cache.values.size() != cache.keys.size())
        throw std::logic_error("llama_append_token: the cache is another model's");
    const RopeTables all = rope_tables(p + 1, hd, c.rope_theta, c.rope_scaling);
    const RopeTables rope{all.angles.bottomRows(1), all.cos.bottomRows(1), all.sin.bottomRows(1)};  // position p
    const float root_d_k = static_cast<float>(std::sqrt(static_cast<double>(hd)));

    // Nothing below throws for a token the checks above let through: the cache grows in place.
    LlamaTokenStep step;
    LlamaCheckpoint::Workspace& workspace = model.workspace();
    const std::lock_guard<std::mutex> hold(workspace.lock);
    LlamaLayer& w = workspace.layer;
    for (int l = 0; l < c.layers; ++l) {
        model.layer(l, w);
        const Matrix normed1 = rms_norm(x, w.input_norm, c.rms_norm_eps);
        Matrix queries = linear(normed1, w.W_query, w.b_query);  // 1 x H*hd
        Matrix keys = linear(normed1, w.W_key, w.b_key);         // 1 x G*hd
        const Matrix values = linear(normed1, w.W_value, w.b_value);
        if (w.q_norm) {
            queries = norm_slices(queries, H, hd, *w.q_norm, c.rms_norm_eps);
            keys = norm_slices(keys, G, hd, *w.k_norm, c.rms_norm_eps);
        }
        queries = apply_rope_to_heads(queries, H, hd, rope);
        const auto li = static_cast<size_t>(l);
        append_row(cache.keys[li], apply_rope_to_heads(keys, G, hd, rope));
        append_row(cache.values[li], values);
        Matrix concat(1, Eigen::Index{H} * hd);
        step.weights.emplace_back();
        for (int h = 0; h < H; ++h) {
            const int g = h / c.group_size();
            // (1 x hd) @ (hd x T+1): the new query against every cached key, itself included
            RowVector weights = matmul_transposed(queries.middleCols(h * hd, hd), cache.keys[li].middleCols(g * hd, hd));
            softmax_row(weights.data(), weights.size(), weights.size(), root_d_k, p);
            concat.middleCols(h * hd, hd) = matmul(weights, cache.values[li].middleCols(g * hd, hd));  // 1 x hd
            step.weights.back().push_back(std::move(weights));
        }
        const Matrix residual1 = x + linear(concat, w.W_out);
        const Matrix normed2 = rms_norm(residual1, w.post_attention_norm, c.rms_norm_eps);
        x = residual1 + linear(swiglu_hidden(w, normed2), w.W_down);
    }
    step.logits = model.logits(rms_norm(x, model.final_norm(), c.rms_norm_eps).row(0));
    cache.ids.push_back(id);
    return step;
}

}  // namespace attn
