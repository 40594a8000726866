#include "attention/kv_cache_walk.h"

#include <cmath>
#include <string>

#include "attention/head_forward.h"
#include "attention/rope.h"
#include "attention/variants/weight_split.h"
#include "numerics/gemm.h"

namespace attn {

namespace {

// Appends a row to a cache of `rows` x cols, dropping the oldest beyond `keep` (0: keep all).
void append_row(Matrix& cache, const Matrix& row, long keep) {
    const Eigen::Index n = cache.rows();
    const bool full = keep > 0 && n >= keep;
    Matrix grown(full ? n : n + 1, row.cols());
    if (full) grown.topRows(n - 1) = cache.bottomRows(n - 1);
    else if (n > 0) grown.topRows(n) = cache;
    grown.row(grown.rows() - 1) = row.row(0);
    cache = std::move(grown);
}

// Each of n slices of width hd of a 1-row matrix rotated as position p.
Matrix rotate_row(const Matrix& row, int n, int hd, const RopeTables& rope, long p) {
    Matrix out(1, row.cols());
    for (int i = 0; i < n; ++i) {
        const Matrix slice = row.middleCols(i * hd, hd);
        // apply_rope reads row r of the tables for row r of x: give it position p's rows
        RopeTables at{rope.angles.middleRows(p, 1), rope.cos.middleRows(p, 1), rope.sin.middleRows(p, 1)};
        out.middleCols(i * hd, hd) = apply_rope(slice, at);
    }
    return out;
}

}  // namespace

KvCacheStep kv_cache_step(const AttentionModule& m, const Matrix& x, long step, int head) {
    const AttentionConfig& cfg = m.cfg;
    if (!has_kv_cache(cfg.variant))
        throw ConfigError(variant_name(cfg.variant) + " is a chapter 3 module without a KV cache (the cache is shown for " +
                          variants_with(&VariantInfo::split) + ")");
    if (step < 0 || step >= x.rows())
        throw ConfigError("step " + std::to_string(step + 1) + " is past the text's " + std::to_string(x.rows()) + " tokens");
    if (head < 0 || head >= cfg.heads) throw ConfigError("head " + std::to_string(head + 1) + " does not exist");
    const bool latent = variant_info(cfg.variant).latent;
    const int H = cfg.heads, hd = head_dim_of(cfg), G = kv_groups_of(cfg);
    const long window = window_of(cfg);
    const Projections& p = m.projections[0];
    std::optional<RopeTables> rope;
    if (cfg.rope) rope = rope_tables(step + 1, hd, cfg.rope_base);

    // Feed tokens 0..step one at a time: each appends one row to the cache.
    Matrix cache_keys, cache_values, cache_latents;
    Matrix queries;  // the last token's, 1 x d_out
    for (long t = 0; t <= step; ++t) {
        const Matrix token = x.middleRows(t, 1);                       // 1 x d_in
        queries = project(token, p.W_query, p.b_query);                 // 1 x d_out
        if (latent) {
            append_row(cache_latents, project(token, m.latent_down->weight, m.latent_down->bias), 0);  // 1 x latent
            continue;
        }
        Matrix keys = project(token, p.W_key, p.b_key);                 // 1 x (G * hd)
        if (rope) keys = rotate_row(keys, G, hd, *rope, t);
        append_row(cache_keys, keys, window);
        append_row(cache_values, project(token, p.W_value, p.b_value), window);
    }
    if (rope) queries = rotate_row(queries, H, hd, *rope, step);
    if (latent) {  // MLA up-projects its whole latent cache at every step
        cache_keys = project(cache_latents, p.W_key, p.b_key);      // cached x d_out
        cache_values = project(cache_latents, p.W_value, p.b_value);
    }

    KvCacheStep s;
    s.step = step;
    s.cached = cache_keys.rows();
    s.first_cached = step + 1 - s.cached;
    s.head = head;
    const int group_size = H / G;
    s.group = head / group_size;
    const float root_d_k = static_cast<float>(std::sqrt(static_cast<double>(hd)));
    const std::vector<float> slopes = variant_info(cfg.variant).alibi ? alibi_slopes(H) : std::vector<float>();
    Matrix concat(1, cfg.d_out);
    for (int h = 0; h < H; ++h) {
        const int g = h / group_size;
        const Matrix q = queries.middleCols(h * hd, hd);             // 1 x hd
        const Matrix keys = cache_keys.middleCols(g * hd, hd);       // cached x hd
        const Matrix values = cache_values.middleCols(g * hd, hd);
        Matrix weights = matmul_transposed(q, keys) / root_d_k;      // 1 x cached
        if (!slopes.empty())  // ALiBi: the query is token `step`, cached key j is token first_cached + j
            for (Eigen::Index j = 0; j < weights.cols(); ++j)
                weights(0, j) += alibi_bias(slopes[static_cast<size_t>(h)], step, s.first_cached + j);
        weights = softmax_rows(weights);
        const Matrix context = matmul(weights, values);               // 1 x hd
        concat.middleCols(h * hd, hd) = context;
        if (h == head) {
            s.query = q;
            s.keys = keys;
            s.values = values;
            s.weights = weights;
            s.context = context;
        }
    }
    s.output = matmul(concat, m.out_proj->weight);  // (1 x d_out) @ (d_out x d_out)
    if (m.out_proj->bias) s.output.row(0) += *m.out_proj->bias;
    if (latent) s.latents = cache_latents;
    const KvCacheSize size = kv_cache_size(cfg, step + 1);
    s.cache_bytes = size.bytes_per_token * size.tokens;
    s.full_cache_bytes = size.mha_bytes_per_token * (step + 1);
    return s;
}

}  // namespace attn
