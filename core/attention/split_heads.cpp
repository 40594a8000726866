#include "attention/split_heads.h"

#include <algorithm>

#include "attention/forward_parts.h"
#include "attention/head_forward.h"
#include "attention/rope.h"

namespace attn {

int head_dim_of(const AttentionConfig& cfg) { return cfg.d_out / cfg.heads; }

int kv_groups_of(const AttentionConfig& cfg) {
    return variant_info(cfg.variant).kv_groups ? cfg.kv_groups : cfg.heads;
}

long window_of(const AttentionConfig& cfg) { return variant_info(cfg.variant).window ? cfg.window : 0; }

KvCacheSize kv_cache_size(const AttentionConfig& cfg, long T) {
    constexpr long kFloat = 4;
    const long mha = 2L * cfg.d_out * kFloat;  // a key and a value of d_out per token
    KvCacheSize size{mha, T, mha};
    if (variant_info(cfg.variant).latent) size.bytes_per_token = latent_dim_of(cfg) * kFloat;  // the latent only
    else size.bytes_per_token = 2L * kv_groups_of(cfg) * head_dim_of(cfg) * kFloat;          // each group's k and v
    if (const long W = window_of(cfg)) size.tokens = std::min(T, W);  // the oldest dropped
    return size;
}

namespace {

Matrix columns(const Matrix& m, int group, int width) { return m.middleCols(group * width, width); }
std::optional<RowVector> columns(const std::optional<RowVector>& b, int group, int width) {
    if (!b) return std::nullopt;
    return RowVector(b->segment(group * width, width));
}

// Each head's (or group's) slice of `all` rotated by position: T x (n * hd).
Matrix rotate_slices(const Matrix& all, int n, int hd, const RopeTables& rope) {
    Matrix out(all.rows(), all.cols());
    for (int i = 0; i < n; ++i) out.middleCols(i * hd, hd) = apply_rope(all.middleCols(i * hd, hd), rope);
    return out;
}

}  // namespace

void forward_split(const AttentionModule& m, const Matrix& x, const KeptStages& keep, Trace& t) {
    const AttentionConfig& cfg = m.cfg;
    const Variant v = cfg.variant;
    const bool latent = variant_info(v).latent;
    const int H = cfg.heads, hd = head_dim_of(cfg), G = kv_groups_of(cfg), group_size = H / G;
    const Eigen::Index T = x.rows();
    const Projections& p = m.projections[0];
    t.causal = true;
    t.window = window_of(cfg);
    t.model.add("W_out", m.out_proj->weight);
    if (m.out_proj->bias) t.model.add("b_out", *m.out_proj->bias);

    // mla caches one latent row per token and up-projects keys and values from it.
    Matrix latents;
    if (latent) {
        t.model.add("W_DKV", m.latent_down->weight);
        if (m.latent_down->bias) t.model.add("b_DKV", *m.latent_down->bias);
        latents = project(x, m.latent_down->weight, m.latent_down->bias);  // T x latent_dim
        t.model.add("latents", latents);
    }
    const Matrix& kv_input = latent ? latents : x;
    const Matrix queries = project(x, p.W_query, p.b_query);     // T x d_out
    const Matrix keys = project(kv_input, p.W_key, p.b_key);      // T x (G * hd)
    const Matrix values = project(kv_input, p.W_value, p.b_value);  // T x (G * hd)

    // RoPE after the head split, before the groups are shared (llama3.py).
    Matrix queries_rotated, keys_rotated;
    if (cfg.rope) {
        const RopeTables rope = rope_tables(T, hd, cfg.rope_base);
        t.model.add("rope_angles", rope.angles);
        queries_rotated = rotate_slices(queries, H, hd, rope);
        keys_rotated = rotate_slices(keys, G, hd, rope);
    }
    const Matrix& attn_queries = cfg.rope ? queries_rotated : queries;
    const Matrix& attn_keys = cfg.rope ? keys_rotated : keys;
    if (variant_info(v).kv_groups)
        for (int h = 0; h < H; ++h) t.head_groups.push_back(h / group_size);

    const Draws draws = draw_dropout(cfg, t, H, T, T);
    prepare_heads(t, H, T, T, keep);
    std::vector<std::vector<Matrix>> contexts(static_cast<size_t>(H));
    HeadErrors errors;
#pragma omp parallel for schedule(dynamic) if (H > 1 && worth_threads(T, T, hd))
    for (int h = 0; h < H; ++h) errors.run([&] {
        HeadTrace& head = t.heads[static_cast<size_t>(h)];
        const auto keeps = [&](const char* name) { return keep.keeps(h, name); };
        const int g = h / group_size;
        const bool keeps_projections = keeps("W_query") || keeps("W_key") || keeps("W_value") || keeps("W_UK") ||
                                       keeps("W_UV") || keeps("b_query") || keeps("b_key") || keeps("b_value") ||
                                       keeps("b_UK") || keeps("b_UV");
        if (keeps_projections)  // the head's columns of the split matrices (copies: only when kept)
            add_projections(head,
                            Projections{columns(p.W_query, h, hd), columns(p.W_key, g, hd), columns(p.W_value, g, hd),
                                        columns(p.b_query, h, hd), columns(p.b_key, g, hd), columns(p.b_value, g, hd)},
                            keeps, latent ? "UK" : "key", latent ? "UV" : "value");
        if (keeps("queries")) head.add("queries", columns(queries, h, hd));
        if (keeps("keys")) head.add("keys", columns(keys, g, hd), Axis::Tokens);
        if (keeps("values")) head.add("values", columns(values, g, hd), Axis::Tokens);
        if (cfg.rope && keeps("queries_rotated")) head.add("queries_rotated", columns(queries_rotated, h, hd));
        if (cfg.rope && keeps("keys_rotated")) head.add("keys_rotated", columns(keys_rotated, g, hd), Axis::Tokens);
        HeadJob job{attn_queries.middleCols(h * hd, hd), attn_keys.middleCols(g * hd, hd),
                    values.middleCols(g * hd, hd),   true, Axis::Tokens, true, draws_of_head(draws, h)};
        job.window = t.window;
        Matrix* preview = keep.preview_side > 0 ? &t.weights_previews[static_cast<size_t>(h)] : nullptr;
        contexts[static_cast<size_t>(h)] = attend_head(job, nullptr, h, keep, head, preview);
    });
    errors.rethrow();
    combine_heads(t, cfg, contexts);
    if (v != Variant::Mha) t.kv_cache = kv_cache_size(cfg, static_cast<long>(T));
}

}  // namespace attn
