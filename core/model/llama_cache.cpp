#include "model/llama_cache.h"

#include <cmath>
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

LlamaCache llama_cache_from_trace(const LlamaConfig& c, const ModelTrace& t) {
    LlamaCache cache;
    cache.ids = t.ids;
    const auto T = static_cast<Eigen::Index>(t.ids.size());
    for (const BlockTrace& b : t.blocks) {
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
    const ModelTrace t = llama_forward(model, ids, KeptStages::only({"keys_rotated", "values"}));
    logits = t.logits.bottomRows(1);  // the last position's
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
    // One row through each weight, straight from the file (row_products.h): converting
    // every layer to floats for one token would cost more than the token's products.
    LlamaTokenStep step;
    const double eps = c.rms_norm_eps;
    for (int l = 0; l < c.layers; ++l) {
        const std::string prefix = "model.layers." + std::to_string(l) + ".";
        const auto times = [&](const char* weight, const Matrix& row) {  // 1 x in -> 1 x out
            return Matrix(model.times_transposed(prefix + weight + ".weight", row.row(0)));
        };
        const auto biased = [&](Matrix y, const char* bias) {
            if (c.qkv_bias) y.row(0) += model.vector(prefix + bias + ".bias", y.cols());
            return y;
        };
        const Matrix normed1 = rms_norm(x, model.vector(prefix + "input_layernorm.weight", c.hidden_size), eps);
        Matrix queries = biased(times("self_attn.q_proj", normed1), "self_attn.q_proj");  // 1 x H*hd
        Matrix keys = biased(times("self_attn.k_proj", normed1), "self_attn.k_proj");     // 1 x G*hd
        const Matrix values = biased(times("self_attn.v_proj", normed1), "self_attn.v_proj");
        if (c.qk_norm) {
            queries = norm_slices(queries, H, hd, model.vector(prefix + "self_attn.q_norm.weight", hd), eps);
            keys = norm_slices(keys, G, hd, model.vector(prefix + "self_attn.k_norm.weight", hd), eps);
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
        const Matrix residual1 = x + times("self_attn.o_proj", concat);
        const Matrix normed2 = rms_norm(residual1, model.vector(prefix + "post_attention_layernorm.weight", c.hidden_size), eps);
        const Matrix gate = times("mlp.gate_proj", normed2), up = times("mlp.up_proj", normed2);  // 1 x ff
        const Matrix hidden = (silu(gate).array() * up.array()).matrix();
        x = residual1 + times("mlp.down_proj", hidden);
    }
    step.logits = model.logits(rms_norm(x, model.final_norm(), c.rms_norm_eps).row(0));
    cache.ids.push_back(id);
    return step;
}

}  // namespace attn
