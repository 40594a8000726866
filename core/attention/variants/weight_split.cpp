#include "attention/variants/weight_split.h"

#include <algorithm>
#include <memory>

#include "attention/forward_parts.h"
#include "attention/head_forward.h"
#include "attention/variants/stacked_heads.h"

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
    switch (variant_info(cfg.variant).kv_cache) {
    case KvCache::None: size.bytes_per_token = 0; break;
    case KvCache::Heads: break;
    case KvCache::Groups: size.bytes_per_token = 2L * kv_groups_of(cfg) * head_dim_of(cfg) * kFloat; break;
    case KvCache::Latent: size.bytes_per_token = latent_dim_of(cfg) * kFloat; break;
    }
    if (const long W = window_of(cfg)) size.tokens = std::min(T, W);  // the oldest dropped
    return size;
}

void build_mha(AttentionModule& m, TorchGenerator& gen) {
    m.projections.push_back(linear_projections(gen, m.d_in, m.cfg.d_out, m.cfg.qkv_bias));
    m.out_proj = torch_linear(gen, m.cfg.d_out, m.cfg.d_out, true);
}

void add_out_proj(const AttentionModule& m, Trace& t) {
    t.model.add("W_out", m.out_proj->weight);
    if (m.out_proj->bias) t.model.add("b_out", *m.out_proj->bias);
}

namespace {

Matrix columns(const Matrix& m, int group, int width) { return m.middleCols(group * width, width); }
std::optional<RowVector> columns(const std::optional<RowVector>& b, int group, int width) {
    if (!b) return std::nullopt;
    return RowVector(b->segment(group * width, width));
}

}  // namespace

HeadWork attend_split_heads(const AttentionModule& m, SplitProjections split_, const KeptStages& keep, Trace& t) {
    const AttentionConfig& cfg = m.cfg;
    const int H = cfg.heads, hd = head_dim_of(cfg), G = kv_groups_of(cfg), group_size = H / G;
    const Eigen::Index T = split_.queries.rows();
    t.window = window_of(cfg);
    if (variant_info(cfg.variant).kv_groups)
        for (int h = 0; h < H; ++h) t.head_groups.push_back(h / group_size);
    prepare_heads(t, H, T, T, keep);
    // What the heads read until the last has run: the closures own it.
    const auto split = std::make_shared<const SplitProjections>(std::move(split_));
    const auto draws = std::make_shared<const Draws>(draw_dropout(cfg, t, H, T, T));
    const auto contexts = std::make_shared<std::vector<std::vector<Matrix>>>(static_cast<size_t>(H));  // [h][b]

    HeadWork work;
    work.heads = H;
    work.parallel = H > 1 && worth_threads(T, T, hd);
    work.attend = [&m, &keep, &t, split, draws, contexts, hd, group_size](int h) {
        const Projections& p = m.projections[0];
        const Matrix& attn_queries = split->queries_rotated ? *split->queries_rotated : split->queries;
        const Matrix& attn_keys = split->keys_rotated ? *split->keys_rotated : split->keys;
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
                            keeps, split->key_name, split->value_name);
        if (keeps("queries")) head.add("queries", columns(split->queries, h, hd));
        if (keeps("keys")) head.add("keys", columns(split->keys, g, hd), Axis::Tokens);
        if (keeps("values")) head.add("values", columns(split->values, g, hd), Axis::Tokens);
        if (split->queries_rotated && keeps("queries_rotated"))
            head.add("queries_rotated", columns(*split->queries_rotated, h, hd));
        if (split->keys_rotated && keeps("keys_rotated"))
            head.add("keys_rotated", columns(*split->keys_rotated, g, hd), Axis::Tokens);
        HeadJob job{attn_queries.middleCols(h * hd, hd), attn_keys.middleCols(g * hd, hd),
                    split->values.middleCols(g * hd, hd), true, Axis::Tokens, true, draws_of_head(*draws, h)};
        job.window = t.window;
        if (!split->alibi_slopes.empty()) job.alibi_slope = split->alibi_slopes[static_cast<size_t>(h)];
        Matrix* preview = keep.preview_side > 0 ? &t.weights_previews[static_cast<size_t>(h)] : nullptr;
        (*contexts)[static_cast<size_t>(h)] = attend_head(job, nullptr, h, keep, head, preview);
    };
    work.finish = [&m, &t, contexts, T] {
        combine_heads(t, m.cfg, *contexts);
        if (variant_info(m.cfg.variant).class_caches) t.kv_cache = kv_cache_size(m.cfg, static_cast<long>(T));
    };
    return work;
}

}  // namespace attn
