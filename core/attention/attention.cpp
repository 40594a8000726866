#include "attention/attention.h"

#include "attention/head_forward.h"
#include "numerics/block_means.h"
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


// Threads cost a few microseconds to wake: below ~1 MFLOP a head, one thread is faster.
bool worth_threads(Eigen::Index rows, Eigen::Index cols, Eigen::Index depth) {
    return rows * cols * depth >= (1 << 20);
}

// An exception must not leave an OpenMP loop (the program would terminate): the first
// one a head throws is kept and thrown again after the loop.
class HeadErrors {
public:
    template <class Body>
    void run(Body&& body) {
        try {
            body();
        } catch (...) {
#pragma omp critical(attn_head_errors)
            if (!first_) first_ = std::current_exception();
        }
    }
    void rethrow() const {
        if (first_) std::rethrow_exception(first_);
    }

private:
    std::exception_ptr first_;
};

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
    return cfg.variant == Variant::Mha || cfg.variant == Variant::Causal || cfg.variant == Variant::MhaWrapper ||
           (cfg.causal && cfg.variant != Variant::Simplified);
}

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
    AttentionModule m{cfg, d_in, {}, std::nullopt, std::nullopt, gen};
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
    m.generator_after_init = gen;
    return m;
}

namespace {

// nn.Dropout's draws for every batch element and head, in torch's order: the
// weight-split module drops its (b, heads, T, S) tensor at once; every other module is
// one forward per head. Empty where nothing is drawn: no dropout, evaluation mode, p = 0.
using Draws = std::vector<std::vector<std::optional<DropoutDraws>>>;  // [b][h]
Draws draw_dropout(const AttentionConfig& cfg, const Trace& t, int H, Eigen::Index T, Eigen::Index S) {
    Draws draws(static_cast<size_t>(cfg.batch), std::vector<std::optional<DropoutDraws>>(static_cast<size_t>(H)));
    const double p = variant_has_dropout(cfg.variant) && cfg.training ? cfg.dropout : 0.0;
    if (p == 0.0) return draws;
    TorchGenerator gen = cfg.dropout_seed ? TorchGenerator(*cfg.dropout_seed) : *t.forward_generator;
    const auto draw = [&](int b, int h) {
        draws[static_cast<size_t>(b)][static_cast<size_t>(h)] =
            torch_dropout_draws(gen, static_cast<int>(T), static_cast<int>(S), p);
    };
    if (cfg.variant == Variant::Mha) {
        for (int b = 0; b < cfg.batch; ++b)
            for (int h = 0; h < H; ++h) draw(b, h);
    } else {
        for (int h = 0; h < H; ++h)
            for (int b = 0; b < cfg.batch; ++b) draw(b, h);
    }
    return draws;
}

std::vector<const DropoutDraws*> draws_of_head(const Draws& draws, int h) {
    std::vector<const DropoutDraws*> out;
    for (const auto& of_b : draws) {
        const std::optional<DropoutDraws>& d = of_b[static_cast<size_t>(h)];
        out.push_back(d ? &*d : nullptr);
    }
    return out;
}

// Heads side by side, (T x d_v) x H -> T x (H * d_v), then out_proj for mha: every batch
// element's output, and the first one's concat in the model stages.
void combine_heads(Trace& t, const AttentionConfig& cfg, std::vector<std::vector<Matrix>>& contexts /* [h][b] */) {
    const size_t H = contexts.size();
    t.output.assign(static_cast<size_t>(cfg.batch), Matrix());
    for (size_t b = 0; b < static_cast<size_t>(cfg.batch); ++b) {
        Eigen::Index width = 0;
        for (size_t h = 0; h < H; ++h) width += contexts[h][b].cols();
        Matrix concat(contexts[0][b].rows(), width);
        Eigen::Index col = 0;
        for (size_t h = 0; h < H; ++h) {
            concat.middleCols(col, contexts[h][b].cols()) = contexts[h][b];
            col += contexts[h][b].cols();
            contexts[h][b] = Matrix();
        }
        if (cfg.variant == Variant::Mha) {
            Matrix out = matmul(concat, t.model.at("W_out"));  // (T x d_out) @ (d_out x d_out)
            out.rowwise() += t.model.at("b_out").row(0);
            if (b == 0) t.model.set("concat", std::move(concat));
            t.output[b] = std::move(out);
        } else {
            if (b == 0 && H > 1) t.model.set("concat", concat);
            t.output[b] = std::move(concat);
        }
    }
}

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

// The projections as the head sees them, each if `keeps` it.
template <class Keeps>
void add_projections(HeadTrace& h, const Projections& p, const Keeps& keeps) {
    if (keeps("W_query")) h.add("W_query", p.W_query);
    if (keeps("W_key")) h.add("W_key", p.W_key);
    if (keeps("W_value")) h.add("W_value", p.W_value);
    if (p.b_query) {
        if (keeps("b_query")) h.add("b_query", *p.b_query);
        if (keeps("b_key")) h.add("b_key", *p.b_key);
        if (keeps("b_value")) h.add("b_value", *p.b_value);
    }
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
    const Matrix* kv_input = &x;
    Axis key_axis = Axis::Tokens;
    if (cfg.variant == Variant::Cross) {
        t.model.add("inputs2", x2 ? *x2 : *m.random_kv, Axis::KeyTokens);
        kv_input = &t.model.at("inputs2");
        key_axis = Axis::KeyTokens;
    }
    const bool mha = cfg.variant == Variant::Mha;
    t.causal = is_causal(cfg);
    const int H = cfg.heads;
    const Eigen::Index T = x.rows(), S = kv_input->rows();
    const Draws draws = draw_dropout(cfg, t, H, T, S);

    // mha projects once, each head a slice of the projections' columns; the other
    // modules hold one set of projections per head.
    Matrix all_queries, all_keys, all_values;
    if (mha) {
        const Projections& all = m.projections[0];
        t.model.add("W_out", m.out_proj->weight);
        t.model.add("b_out", *m.out_proj->bias);
        all_queries = project(x, all.W_query, all.b_query);  // T x d_out
        all_keys = project(x, all.W_key, all.b_key);
        all_values = project(x, all.W_value, all.b_value);
    }
    const int hd = mha ? cfg.d_out / H : 0;
    const auto slice = [hd](const Matrix& mat, int h) -> Matrix { return mat.middleCols(h * hd, hd); };
    const auto slice_bias = [hd](const std::optional<RowVector>& b, int h) -> std::optional<RowVector> {
        if (!b) return std::nullopt;
        return RowVector(b->segment(h * hd, hd));
    };

    t.heads.resize(static_cast<size_t>(H));
    if (keep.preview_side > 0) {
        t.weights_previews.resize(static_cast<size_t>(H));
        t.preview_factor = block_factor(T, S, keep.preview_side);
    }
    std::vector<std::vector<Matrix>> contexts(static_cast<size_t>(H));
    const bool parallel = H > 1 && worth_threads(T, S, mha ? hd : cfg.d_out);
    HeadErrors errors;
#pragma omp parallel for schedule(dynamic) if (parallel)
    for (int h = 0; h < H; ++h) errors.run([&] {
        HeadTrace& head = t.heads[static_cast<size_t>(h)];
        const auto keeps = [&](const char* name) { return keep.keeps(h, name); };
        const Projections& all = m.projections[mha ? 0 : static_cast<size_t>(h)];
        const bool keeps_projections = keeps("W_query") || keeps("W_key") || keeps("W_value") || keeps("b_query") ||
                                       keeps("b_key") || keeps("b_value");
        if (!mha) add_projections(head, all, keeps);
        else if (keeps_projections)  // each head's columns of the split matrices (copies: only when kept)
            add_projections(head,
                            Projections{slice(all.W_query, h), slice(all.W_key, h), slice(all.W_value, h),
                                        slice_bias(all.b_query, h), slice_bias(all.b_key, h), slice_bias(all.b_value, h)},
                            keeps);
        Matrix own_queries, own_keys, own_values;  // the non-split modules' own projections
        if (!mha) {
            const Projections& p = m.projections[static_cast<size_t>(h)];
            own_queries = project(x, p.W_query, p.b_query);
            own_keys = project(*kv_input, p.W_key, p.b_key);
            own_values = project(*kv_input, p.W_value, p.b_value);
        }
        const HeadJob job{mha ? ConstMatrixView(all_queries.middleCols(h * hd, hd)) : ConstMatrixView(own_queries),
                          mha ? ConstMatrixView(all_keys.middleCols(h * hd, hd)) : ConstMatrixView(own_keys),
                          mha ? ConstMatrixView(all_values.middleCols(h * hd, hd)) : ConstMatrixView(own_values),
                          t.causal, key_axis, variant_has_dropout(cfg.variant), draws_of_head(draws, h)};
        if (keeps("queries")) head.add("queries", Matrix(job.queries));
        if (keeps("keys")) head.add("keys", Matrix(job.keys), key_axis);
        if (keeps("values")) head.add("values", Matrix(job.values), key_axis);
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
    const bool parallel = H > 1 && worth_threads(first.at("weights").rows(), first.at("weights").cols(), first.at("values").cols());
    HeadErrors errors;
#pragma omp parallel for schedule(dynamic) if (parallel)
    for (int h = 0; h < H; ++h) errors.run([&] {
        HeadTrace& head = t.heads[static_cast<size_t>(h)];
        const Matrix& values = head.at("values");
        const Matrix none;
        const HeadJob job{none, values, values, t.causal, head.find("weights")->cols, variant_has_dropout(cfg.variant),
                          draws_of_head(draws, h)};
        contexts[static_cast<size_t>(h)] = attend_head(job, &head.at("weights"), h, t.kept, head);
    });
    errors.rethrow();
    combine_heads(t, cfg, contexts);
}

Trace run_attention(const Matrix& x, const Matrix* x2, const AttentionConfig& cfg, const KeptStages& keep) {
    return forward(build_attention(static_cast<int>(x.cols()), cfg), x, x2, keep);
}

}  // namespace attn
