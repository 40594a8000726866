#include "attention/attention.h"

#include "settings/settings.h"

#include <cmath>
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

Matrix project(const Matrix& x, const Matrix& W, const std::optional<RowVector>& b) {
    Matrix y = x * W;  // (T x d_in) @ (d_in x d) -> T x d
    if (b) y.rowwise() += *b;
    return y;
}

// One head of scaled dot-product attention up to the softmax weights.
HeadTrace head_weights(const Projections& p, Matrix queries, Matrix keys, Matrix values, const Matrix& mask,
                       Axis key_axis) {
    HeadTrace h;
    // Axes and colour scales come from the stage catalogue (stage_catalogue.h).
    h.add("W_query", p.W_query);
    h.add("W_key", p.W_key);
    h.add("W_value", p.W_value);
    if (p.b_query) {
        h.add("b_query", *p.b_query);
        h.add("b_key", *p.b_key);
        h.add("b_value", *p.b_value);
    }
    // torch divides by the Python float d_k**0.5, narrowed to float.
    const auto root_d_k = static_cast<float>(std::sqrt(static_cast<double>(keys.cols())));

    Matrix scores = queries * keys.transpose();  // (T x d) @ (d x T_kv) -> T x T_kv
    Matrix scaled = scores / root_d_k;
    Matrix masked = (mask.array() > 0.5f).select(-std::numeric_limits<float>::infinity(), scaled);
    Matrix weights = softmax_rows(masked);

    h.add("queries", std::move(queries));
    h.add("keys", std::move(keys), key_axis);
    h.add("values", std::move(values), key_axis);
    h.add("scores", std::move(scores), key_axis);
    h.add("scaled_scores", std::move(scaled), key_axis);
    h.add("mask", mask, key_axis);
    h.add("masked_scores", std::move(masked), key_axis);
    h.add("weights", std::move(weights), key_axis);
    return h;
}

HeadTrace head_weights(const Projections& p, const Matrix& x_q, const Matrix& x_kv, const Matrix& mask,
                       Axis key_axis) {
    return head_weights(p, project(x_q, p.W_query, p.b_query), project(x_kv, p.W_key, p.b_key),
                        project(x_kv, p.W_value, p.b_value), mask, key_axis);
}

// The mask every head of a forward shares: triu(ones, 1) when causal, else nothing masked.
Matrix forward_mask(bool causal, Eigen::Index rows, Eigen::Index cols) {
    const auto r = static_cast<int>(rows), c = static_cast<int>(cols);
    return causal ? causal_mask(r, c) : Matrix::Zero(r, c);
}

// Threads cost a few microseconds to wake: below ~1 MFLOP a head, one thread is faster.
bool worth_threads(Eigen::Index rows, Eigen::Index cols, Eigen::Index depth) {
    return rows * cols * depth >= (1 << 20);
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
    if (cfg.variant == Variant::Mha && cfg.d_out % cfg.heads != 0)
        throw ConfigError("d_out (" + std::to_string(cfg.d_out) + ") must be divisible by heads (" +
                          std::to_string(cfg.heads) + ")");
}

void check_inputs(const AttentionModule& m, const Matrix& x, const Matrix* x2) {
    const auto fail = [](const std::string& why) { throw ConfigError(why); };
    if (x.rows() == 0) fail("the text has no tokens");
    if (x.cols() != m.d_in) fail("the inputs have d_in " + std::to_string(x.cols()) + ", the module " + std::to_string(m.d_in));
    if (x2 && x2->rows() == 0) fail("the second text has no tokens");
    if (x2 && x2->cols() != x.cols()) fail("both inputs must have the same d_in");
}

}  // namespace

Matrix causal_mask(int rows, int cols) {
    Matrix m = Matrix::Zero(rows, cols);
    for (int i = 0; i + 1 < cols && i < rows; ++i) m.row(i).tail(cols - i - 1).setOnes();  // j > i
    return m;
}

Matrix softmax_rows(const Matrix& scores) {
    Matrix out(scores.rows(), scores.cols());
    for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        const float max = scores.row(i).maxCoeff();
        if (max == -std::numeric_limits<float>::infinity())
            throw ConfigError("row " + std::to_string(i) +
                              " of the scores is masked entirely: its softmax is undefined (NaN)");
        out.row(i) = (scores.row(i).array() - max).exp();
        // Eigen's vectorised exp clamps its argument near -88, so exp(-inf) is ~1e-38
        // rather than torch's exact 0: masked cells are set to 0 explicitly.
        const float* in = &scores(i, 0);
        float* o = &out(i, 0);
        for (Eigen::Index j = 0; j < scores.cols(); ++j)
            if (in[j] == -std::numeric_limits<float>::infinity()) o[j] = 0.0f;
        const float inv_sum = 1.0f / out.row(i).sum();  // torch multiplies by 1/sum
        out.row(i) *= inv_sum;
    }
    return out;
}

AttentionModule build_attention(int d_in, const AttentionConfig& cfg) {
    check_config(cfg);
    if (d_in < 1 || d_in > 4096) throw ConfigError("d_in must be between 1 and 4096");
    AttentionModule m{cfg, d_in, {}, std::nullopt, std::nullopt, TorchGenerator(cfg.seed)};
    TorchGenerator& gen = m.generator_after_init;
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
        m.projections.push_back(linear_projections(gen, d_in, cfg.d_out, cfg.qkv_bias));
        m.out_proj = torch_linear(gen, cfg.d_out, cfg.d_out, true);
        break;
    }
    return m;
}

Trace attention_weights(const AttentionModule& m, const Matrix& x, const Matrix* x2) {
    check_inputs(m, x, x2);
    const AttentionConfig& cfg = m.cfg;
    Trace t;
    t.variant = variant_name(cfg.variant);
    t.forward_generator = m.generator_after_init;
    t.model.add("inputs", x);

    switch (cfg.variant) {
    case Variant::Simplified: {  // 3.3: the inputs are queries, keys and values
        HeadTrace h;
        Matrix scores = x * x.transpose();  // T x T
        Matrix weights = softmax_rows(scores);
        h.add("scores", std::move(scores), Axis::Tokens);
        h.add("weights", std::move(weights), Axis::Tokens);
        t.heads.push_back(std::move(h));
        break;
    }
    case Variant::SelfV1:
    case Variant::Cross: {
        const Matrix* kv_input = &x;
        Axis key_axis = Axis::Tokens;
        if (cfg.variant == Variant::Cross) {
            t.model.add("inputs2", x2 ? *x2 : *m.random_kv, Axis::KeyTokens);
            kv_input = &t.model.at("inputs2");
            key_axis = Axis::KeyTokens;
        }
        const Matrix mask = forward_mask(cfg.causal, x.rows(), kv_input->rows());
        t.causal = cfg.causal;
        for (const Projections& p : m.projections) t.heads.push_back(head_weights(p, x, *kv_input, mask, key_axis));
        break;
    }
    case Variant::SelfV2:
    case Variant::Causal:
    case Variant::MhaWrapper: {
        t.causal = cfg.variant != Variant::SelfV2 || cfg.causal;
        const Matrix mask = forward_mask(t.causal, x.rows(), x.rows());
        for (const Projections& p : m.projections) t.heads.push_back(head_weights(p, x, x, mask, Axis::Tokens));
        break;
    }
    case Variant::Mha: {  // weight splits: each head is a slice of the projections' columns
        const Projections& all = m.projections[0];
        t.model.add("W_out", m.out_proj->weight);
        t.model.add("b_out", *m.out_proj->bias);
        const Matrix queries = project(x, all.W_query, all.b_query);  // T x d_out
        const Matrix keys = project(x, all.W_key, all.b_key);
        const Matrix values = project(x, all.W_value, all.b_value);
        const int hd = cfg.d_out / cfg.heads;
        t.causal = true;
        const Matrix mask = forward_mask(t.causal, x.rows(), x.rows());
        t.heads.resize(static_cast<size_t>(cfg.heads));
        const bool parallel = worth_threads(x.rows(), x.rows(), hd);
        const auto slice = [hd](const Matrix& mat, int h) -> Matrix { return mat.middleCols(h * hd, hd); };
        const auto slice_bias = [hd](const std::optional<RowVector>& b, int h) -> std::optional<RowVector> {
            if (!b) return std::nullopt;
            return RowVector(b->segment(h * hd, hd));
        };
#pragma omp parallel for schedule(static) if (parallel)
        for (int h = 0; h < cfg.heads; ++h) {
            const Projections p{slice(all.W_query, h), slice(all.W_key, h), slice(all.W_value, h),
                                slice_bias(all.b_query, h), slice_bias(all.b_key, h), slice_bias(all.b_value, h)};
            t.heads[static_cast<size_t>(h)] =
                head_weights(p, slice(queries, h), slice(keys, h), slice(values, h), mask, Axis::Tokens);
        }
        break;
    }
    }
    return t;
}

void attention_output(Trace& t, const AttentionConfig& cfg) {
    const int H = static_cast<int>(t.heads.size());
    const int B = cfg.batch;
    if (cfg.variant == Variant::Simplified) {
        HeadTrace& h = t.heads[0];
        h.set("context", h.at("weights") * t.model.at("inputs"));
        t.output.assign(static_cast<size_t>(B), h.at("context"));
        return;
    }
    const bool has_dropout = variant_has_dropout(cfg.variant);
    const double p = has_dropout && cfg.training ? cfg.dropout : 0.0;
    TorchGenerator gen = cfg.dropout_seed ? TorchGenerator(*cfg.dropout_seed) : *t.forward_generator;

    // Dropout factors [b][h], drawn in torch's order: the weight-split module drops
    // its (b, heads, T, T) tensor at once; every other module is one forward per head.
    // For p = 0 or 1 torch draws nothing, so the factors are made in the parallel loop.
    const bool draws = p > 0.0 && p < 1.0;
    std::vector<std::vector<Matrix>> factors(static_cast<size_t>(B), std::vector<Matrix>(static_cast<size_t>(H)));
    const auto draw = [&](int b, int h) {
        const Matrix& w = t.heads[static_cast<size_t>(h)].at("weights");
        factors[static_cast<size_t>(b)][static_cast<size_t>(h)] =
            torch_dropout_mask(gen, static_cast<int>(w.rows()), static_cast<int>(w.cols()), p);
    };
    if (draws && cfg.variant == Variant::Mha) {
        for (int b = 0; b < B; ++b)
            for (int h = 0; h < H; ++h) draw(b, h);
    } else if (draws) {
        for (int h = 0; h < H; ++h)
            for (int b = 0; b < B; ++b) draw(b, h);
    }

    t.output.assign(static_cast<size_t>(B), Matrix());
    for (int b = 0; b < B; ++b) {
        std::vector<Matrix> contexts(static_cast<size_t>(H));
        const Matrix& values0 = t.heads[0].at("values");
        const bool parallel = worth_threads(values0.rows(), values0.rows(), values0.cols());
#pragma omp parallel for schedule(static) if (parallel)
        for (int h = 0; h < H; ++h) {
            HeadTrace& head = t.heads[static_cast<size_t>(h)];
            Matrix& factor = factors[static_cast<size_t>(b)][static_cast<size_t>(h)];
            if (!draws) draw(b, h);  // p = 0 or 1: constant factors, the generator is not touched
            Matrix dropped = head.at("weights").cwiseProduct(factor);
            // (T x T_kv) @ (T_kv x d_v) -> T x d_v; under a causal mask the upper triangle is
            // zero, so only the lower one is multiplied (the same sums, half the work; below
            // 64 tokens the triangular product's set-up costs more than it saves).
            const Matrix& values = head.at("values");
            contexts[static_cast<size_t>(h)] = t.causal && dropped.rows() == dropped.cols() && dropped.rows() >= 64
                                                   ? Matrix(dropped.triangularView<Eigen::Lower>() * values)
                                                   : Matrix(dropped * values);
            if (b == 0) {
                if (has_dropout) {  // the weights' shape, so their key axis
                    const Axis key_axis = head.find("weights")->cols;
                    head.set("dropout_mask", std::move(factor), key_axis);
                    head.set("dropped_weights", std::move(dropped), key_axis);
                }
                head.set("context", contexts[static_cast<size_t>(h)]);
            }
        }
        // Heads side by side: (T x hd) x H -> T x (H * hd)
        Eigen::Index width = 0;
        for (const Matrix& c : contexts) width += c.cols();
        Matrix concat(contexts[0].rows(), width);
        Eigen::Index col = 0;
        for (const Matrix& c : contexts) {
            concat.middleCols(col, c.cols()) = c;
            col += c.cols();
        }
        if (cfg.variant == Variant::Mha) {
            Matrix out = concat * t.model.at("W_out");  // (T x d_out) @ (d_out x d_out)
            out.rowwise() += t.model.at("b_out").row(0);
            if (b == 0) t.model.set("concat", std::move(concat));
            t.output[static_cast<size_t>(b)] = std::move(out);
        } else {
            if (b == 0 && H > 1) t.model.set("concat", concat);
            t.output[static_cast<size_t>(b)] = std::move(concat);
        }
    }
}

Trace forward(const AttentionModule& module, const Matrix& x, const Matrix* x2) {
    Trace t = attention_weights(module, x, x2);
    attention_output(t, module.cfg);
    return t;
}

Trace run_attention(const Matrix& x, const Matrix* x2, const AttentionConfig& cfg) {
    return forward(build_attention(static_cast<int>(x.cols()), cfg), x, x2);
}

}  // namespace attn
