#include "attention/attention.h"

#include "attention/forward_parts.h"
#include "attention/head_forward.h"
#include "attention/split_heads.h"
#include "numerics/gemm.h"
#include "settings/settings.h"

#include <cmath>
#include <exception>
#include <limits>

namespace attn {

namespace {

// SelfAttention_v1 / 004's SelfAttention and CrossAttention: torch.rand weights.
Projections rand_projections(TorchGenerator& gen, int d_in, int d_out, int d_out_v) {
    Projections p;
    p.W_query = torch_rand(gen, d_in, d_out);
    p.W_key = torch_rand(gen, d_in, d_out);
    p.W_value = torch_rand(gen, d_in, d_out_v);
    return p;
}

// SelfAttention_v2 / CausalAttention: three nn.Linear layers, built in this order.
Projections linear_projections(TorchGenerator& gen, int d_in, int d_out, bool bias) {
    const Linear q = torch_linear(gen, d_in, d_out, bias);
    const Linear k = torch_linear(gen, d_in, d_out, bias);
    const Linear v = torch_linear(gen, d_in, d_out, bias);
    return Projections{q.weight, k.weight, v.weight, q.bias, k.bias, v.bias};
}


void check_config(const AttentionConfig& cfg) {
    // The ranges are the settings table's; a config built by code has not been parsed.
    Settings s;
    s.attention = cfg;
    s.d_out_v = cfg.d_out_v;
    try {
        check_ranges(s);
    } catch (const ArgsError& e) {
        throw ConfigError(e.what());
    }
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
    Matrix y = matmul(x, W);  // (T x d_in) @ (d_in x d) -> T x d
    if (b) y.rowwise() += *b;
    return y;
}

Matrix causal_mask(int rows, int cols) {
    Matrix m = Matrix::Zero(rows, cols);
    for (int i = 0; i + 1 < cols && i < rows; ++i) m.row(i).tail(cols - i - 1).setOnes();  // j > i
    return m;
}

bool is_causal(const AttentionConfig& cfg) {
    return splits_heads(cfg.variant) || cfg.variant == Variant::Causal || cfg.variant == Variant::MhaWrapper ||
           (cfg.causal && cfg.variant != Variant::Simplified);
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
    if (d_in < 1 || d_in > 4096) throw ConfigError("d_in must be between 1 and 4096");
    AttentionModule m{cfg, d_in, {}, std::nullopt, std::nullopt, std::nullopt, gen};
    switch (cfg.variant) {
    case Variant::Simplified:  // 3.3 has no weights
        break;
    case Variant::SelfV1:
    case Variant::Cross:  // 004: every module is built before the second input is drawn
        for (int i = 0; i < cfg.heads; ++i) m.projections.push_back(rand_projections(gen, d_in, cfg.d_out, cfg.d_out_v));
        if (cfg.variant == Variant::Cross) m.random_kv = torch_rand(gen, cfg.kv_len, d_in);
        break;
    case Variant::SelfV2:
    case Variant::Causal:
    case Variant::MhaWrapper:  // one SelfAttention_v2 / CausalAttention per head
        for (int i = 0; i < cfg.heads; ++i) m.projections.push_back(linear_projections(gen, d_in, cfg.d_out, cfg.qkv_bias));
        break;
    case Variant::Mha:  // one projection each, split into heads at forward; then out_proj
    case Variant::Swa:  // MultiHeadAttentionWithSWA builds the same layers
        m.projections.push_back(linear_projections(gen, d_in, cfg.d_out, cfg.qkv_bias));
        m.out_proj = torch_linear(gen, cfg.d_out, cfg.d_out, true);
        break;
    case Variant::Gqa: {  // GroupedQueryAttention: W_key and W_value of the groups' width first
        const int kv_width = cfg.kv_groups * (cfg.d_out / cfg.heads);
        const Linear k = torch_linear(gen, d_in, kv_width, cfg.qkv_bias);
        const Linear v = torch_linear(gen, d_in, kv_width, cfg.qkv_bias);
        const Linear q = torch_linear(gen, d_in, cfg.d_out, cfg.qkv_bias);
        m.projections.push_back(Projections{q.weight, k.weight, v.weight, q.bias, k.bias, v.bias});
        m.out_proj = torch_linear(gen, cfg.d_out, cfg.d_out, false);
        break;
    }
    case Variant::Mla: {  // MultiHeadLatentAttention: W_query, W_DKV, W_UK, W_UV, out_proj
        const int latent = latent_dim_of(cfg);
        const Linear q = torch_linear(gen, d_in, cfg.d_out, cfg.qkv_bias);
        m.latent_down = torch_linear(gen, d_in, latent, cfg.qkv_bias);
        const Linear up_k = torch_linear(gen, latent, cfg.d_out, cfg.qkv_bias);
        const Linear up_v = torch_linear(gen, latent, cfg.d_out, cfg.qkv_bias);
        m.projections.push_back(Projections{q.weight, up_k.weight, up_v.weight, q.bias, up_k.bias, up_v.bias});
        m.out_proj = torch_linear(gen, cfg.d_out, cfg.d_out, true);
        break;
    }
    }
    m.generator_after_init = gen;
    return m;
}

namespace {

// The simplified attention of 3.3: the inputs are queries, keys and values, unscaled.
void simplified(Trace& t, int batch) {
    const Matrix& x = t.model.at("inputs");
    HeadTrace h;
    Matrix scores = matmul_transposed(x, x);  // T x T
    Matrix weights = softmax_rows(scores);
    Matrix context = matmul(weights, x);
    h.add("scores", std::move(scores), Axis::Tokens);
    h.add("weights", std::move(weights), Axis::Tokens);
    h.add("context", context);
    t.heads.push_back(std::move(h));
    t.output.assign(static_cast<size_t>(batch), context);
}

}  // namespace

Trace forward(const AttentionModule& m, const Matrix& x, const Matrix* x2, const KeptStages& keep) {
    check_inputs(m, x, x2);
    const AttentionConfig& cfg = m.cfg;
    Trace t;
    t.variant = variant_name(cfg.variant);
    t.forward_generator = m.generator_after_init;
    t.kept = keep;
    t.model.add("inputs", x);
    if (cfg.variant == Variant::Simplified) {
        simplified(t, cfg.batch);
        return t;
    }
    if (splits_heads(cfg.variant)) {
        forward_split(m, x, keep, t);
        return t;
    }
    // The stacked modules: one set of projections, one forward per head.
    const Matrix* kv_input = &x;
    Axis key_axis = Axis::Tokens;
    if (cfg.variant == Variant::Cross) {
        t.model.add("inputs2", x2 ? *x2 : *m.random_kv, Axis::KeyTokens);
        kv_input = &t.model.at("inputs2");
        key_axis = Axis::KeyTokens;
    }
    t.causal = is_causal(cfg);
    const int H = cfg.heads;
    const Eigen::Index T = x.rows(), S = kv_input->rows();
    const Draws draws = draw_dropout(cfg, t, H, T, S);

    prepare_heads(t, H, T, S, keep);
    std::vector<std::vector<Matrix>> contexts(static_cast<size_t>(H));
    HeadErrors errors;
#pragma omp parallel for schedule(dynamic) if (H > 1 && worth_threads(T, S, cfg.d_out))
    for (int h = 0; h < H; ++h) errors.run([&] {
        HeadTrace& head = t.heads[static_cast<size_t>(h)];
        const auto keeps = [&](const char* name) { return keep.keeps(h, name); };
        const Projections& p = m.projections[static_cast<size_t>(h)];
        add_projections(head, p, keeps);
        const Matrix queries = project(x, p.W_query, p.b_query);  // T x d_out
        const Matrix keys = project(*kv_input, p.W_key, p.b_key);  // S x d_out
        const Matrix values = project(*kv_input, p.W_value, p.b_value);  // S x d_out_v
        const HeadJob job{queries, keys, values, t.causal, key_axis, variant_has_dropout(cfg.variant), draws_of_head(draws, h)};
        if (keeps("queries")) head.add("queries", queries);
        if (keeps("keys")) head.add("keys", keys, key_axis);
        if (keeps("values")) head.add("values", values, key_axis);
        Matrix* preview = keep.preview_side > 0 ? &t.weights_previews[static_cast<size_t>(h)] : nullptr;
        contexts[static_cast<size_t>(h)] = attend_head(job, nullptr, h, keep, head, preview);
    });
    errors.rethrow();
    combine_heads(t, cfg, contexts);
    return t;
}

void attention_output(Trace& t, const AttentionConfig& cfg) {
    if (cfg.variant == Variant::Simplified) return;  // no dropout: its output stays
    const int H = static_cast<int>(t.heads.size());
    if (!t.kept.can_rerun_output(H)) throw std::logic_error("attention_output: the trace keeps no weights or values to rerun from");
    const HeadTrace& first = t.heads[0];
    const Draws draws = draw_dropout(cfg, t, H, first.at("weights").rows(), first.at("weights").cols());
    std::vector<std::vector<Matrix>> contexts(static_cast<size_t>(H));
    [[maybe_unused]] const bool parallel = H > 1 && worth_threads(  // read by the pragma only
        first.at("weights").rows(), first.at("weights").cols(), first.at("values").cols());
    HeadErrors errors;
#pragma omp parallel for schedule(dynamic) if (parallel)
    for (int h = 0; h < H; ++h) errors.run([&] {
        HeadTrace& head = t.heads[static_cast<size_t>(h)];
        const Matrix& values = head.at("values");
        const Matrix none;
        HeadJob job{none, values, values, t.causal, head.find("weights")->cols, variant_has_dropout(cfg.variant),
                    draws_of_head(draws, h)};
        job.window = t.window;
        contexts[static_cast<size_t>(h)] = attend_head(job, &head.at("weights"), h, t.kept, head);
    });
    errors.rethrow();
    combine_heads(t, cfg, contexts);
}

Trace run_attention(const Matrix& x, const Matrix* x2, const AttentionConfig& cfg, const KeptStages& keep) {
    return forward(build_attention(static_cast<int>(x.cols()), cfg), x, x2, keep);
}

}  // namespace attn
