#include "attention/attention.h"

#include "attention/forward_parts.h"
#include "attention/head_forward.h"
#include "base/decimal_text.h"
#include "numerics/gemm.h"

#include <cmath>
#include <exception>
#include <limits>
#include <memory>

namespace attn {

namespace {

void check_range(const char* name, double value, double lo, double hi) {
    if (!(value >= lo && value <= hi))  // NaN fails too
        throw ConfigError(std::string(name) + " must be between " + shortest_decimal(lo) + " and " + shortest_decimal(hi) +
                          ", got " + shortest_decimal(value));
}

void check_config(const AttentionConfig& cfg) {
    // A config from the settings was checked against the same limits by its rows; one
    // built by code (a model's blocks, a test) is checked here.
    namespace L = limits;
    check_range("d_out", cfg.d_out, 1, L::kMaxWidth);
    check_range("d_out_v", cfg.d_out_v, 1, L::kMaxWidth);
    check_range("heads", cfg.heads, 1, L::kMaxHeads);
    check_range("kv_groups", cfg.kv_groups, 1, L::kMaxHeads);
    check_range("kv_len", cfg.kv_len, 1, L::kMaxWidth);
    check_range("batch", cfg.batch, 1, L::kMaxBatch);
    check_range("dropout", cfg.dropout, 0, 1);
    check_range("rope_base", cfg.rope_base, L::kMinRopeBase, L::kMaxRopeBase);
    check_range("window", cfg.window, 1, L::kMaxWindow);
    if (cfg.latent_dim) check_range("latent_dim", *cfg.latent_dim, 1, L::kMaxWidth);
    if (cfg.heads > 1 && !variant_info(cfg.variant).heads)
        throw ConfigError(variant_name(cfg.variant) + " has one head (--heads applies to " +
                          variants_with(&VariantInfo::heads) + ")");
    if (splits_heads(cfg.variant) && cfg.d_out % cfg.heads != 0)
        throw ConfigError("d_out (" + std::to_string(cfg.d_out) + ") must be divisible by heads (" +
                          std::to_string(cfg.heads) + ")");
    const VariantInfo& v = variant_info(cfg.variant);
    if (v.kv_groups && cfg.heads % cfg.kv_groups != 0)
        throw ConfigError("heads (" + std::to_string(cfg.heads) + ") must be divisible by kv-groups (" +
                          std::to_string(cfg.kv_groups) + "): each group serves the same number of heads");
    if (v.rope && cfg.rope && (cfg.d_out / cfg.heads) % 2 != 0)
        throw ConfigError("RoPE rotates pairs of features: the head dimension (d_out / heads = " +
                          std::to_string(cfg.d_out / cfg.heads) + ") must be even");
}

void check_inputs(const AttentionModule& m, const Matrix& x, const Matrix* x2) {
    const auto fail = [](const std::string& why) { throw ConfigError(why); };
    if (x.rows() == 0) fail("the text has no tokens");
    if (x.cols() != m.d_in) fail("the inputs have d_in " + std::to_string(x.cols()) + ", the module " + std::to_string(m.d_in));
    if (x2 && x2->rows() == 0) fail("the second text has no tokens");
    if (x2 && x2->cols() != x.cols()) fail("both inputs must have the same d_in");
}

}  // namespace

Matrix project(const Matrix& x, const Matrix& W, const std::optional<RowVector>& b) {
    return linear_product(x, W, Transpose::No, b);  // (T x d_in) @ (d_in x d) -> T x d
}

Matrix causal_mask(int rows, int cols) { return attention_mask(rows, cols, /*causal=*/true, /*window=*/0); }

bool is_causal(const AttentionConfig& cfg) {
    const VariantInfo& row = variant_info(cfg.variant);
    return row.always_causal || (row.causal_toggle && cfg.causal);
}

int latent_dim_of(const AttentionConfig& cfg) { return cfg.latent_dim ? *cfg.latent_dim : std::max(16, cfg.d_out / 8); }

Matrix softmax_rows(const Matrix& scores) {
    Matrix out = scores;
    for (Eigen::Index i = 0; i < out.rows(); ++i) softmax_row(&out(i, 0), out.cols(), out.cols(), 1.0f, i);
    return out;
}

AttentionModule build_attention(int d_in, const AttentionConfig& cfg) {
    TorchGenerator gen(cfg.seed);
    return build_attention(d_in, cfg, gen);
}

AttentionModule build_attention(int d_in, const AttentionConfig& cfg, TorchGenerator& gen) {
    check_config(cfg);
    if (d_in < 1 || d_in > limits::kMaxWidth)
        throw ConfigError("d_in must be between 1 and " + std::to_string(limits::kMaxWidth));
    AttentionModule m{cfg, d_in, {}, std::nullopt, std::nullopt, std::nullopt, gen};
    variant_info(cfg.variant).build(m, gen);  // its layers, in its class's order
    m.generator_after_init = gen;
    return m;
}

Trace begin_forward(const AttentionModule& m, const Matrix& x, const Matrix* x2, const KeptStages& keep) {
    check_inputs(m, x, x2);
    Trace t;
    t.variant = variant_name(m.cfg.variant);
    t.forward_generator = m.generator_after_init;
    t.kept = keep;
    t.model.add("inputs", x);
    t.causal = is_causal(m.cfg);
    return t;
}

Trace forward(const AttentionModule& m, const Matrix& x, const Matrix* x2, const KeptStages& keep) {
    Trace t = begin_forward(m, x, x2, keep);
    run_heads(variant_info(m.cfg.variant).forward(m, x, x2, keep, t));
    return t;
}

HeadWork output_work(Trace& t, const AttentionConfig& cfg) {
    if (!variant_info(cfg.variant).projections) return {0, false, nullptr, [] {}};  // 3.3: no weights, no dropout: its output stays
    const int H = static_cast<int>(t.heads.size());
    if (!t.kept.can_rerun_output(H)) throw std::logic_error("attention_output: the trace keeps no weights or values to rerun from");
    const HeadTrace& first = t.heads[0];
    // Every head's dropout is drawn now, in torch's order; what the heads read is shared.
    struct Shared {
        Draws draws;
        std::vector<std::vector<Matrix>> contexts;  // [h][b]
    };
    auto shared = std::make_shared<Shared>(
        Shared{draw_dropout(cfg, t, H, first.at("weights").rows(), first.at("weights").cols()),
               std::vector<std::vector<Matrix>>(static_cast<size_t>(H))});
    HeadWork work;
    work.heads = H;
    work.parallel = H > 1 && worth_threads(first.at("weights").rows(), first.at("weights").cols(), first.at("values").cols());
    work.attend = [&t, cfg, shared](int h) {
        HeadTrace& head = t.heads[static_cast<size_t>(h)];
        const Matrix& values = head.at("values");
        const Matrix none;
        HeadJob job{none, values, values, t.causal, head.find("weights")->cols, variant_has_dropout(cfg.variant),
                    draws_of_head(shared->draws, h)};
        job.window = t.window;
        shared->contexts[static_cast<size_t>(h)] = attend_head(job, &head.at("weights"), h, t.kept, head);
    };
    work.finish = [&t, cfg, shared] { combine_heads(t, cfg, shared->contexts); };
    return work;
}

void attention_output(Trace& t, const AttentionConfig& cfg) { run_heads(output_work(t, cfg)); }

Trace run_attention(const Matrix& x, const Matrix* x2, const AttentionConfig& cfg, const KeptStages& keep) {
    return forward(build_attention(static_cast<int>(x.cols()), cfg), x, x2, keep);
}

}  // namespace attn
