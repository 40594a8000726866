#include "check/attention_check.h"

#include <cmath>
#include <cstdio>

#include "attention/attention.h"
#include "check/mistakes.h"
#include "model/safetensors.h"  // ModelFileError
#include "numerics/tolerance.h"

namespace attn {

namespace {

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
}

// The module the record describes, as the engine builds it, with the recorded weights.
AttentionModule recorded_module(const RecordedAttention& r) {
    AttentionConfig cfg;
    switch (r.variant) {
    case RecordedVariant::Chapter3:
        // MultiHeadAttention (3.6.2) has out_proj; CausalAttention (3.5) a mask and no
        // out_proj; SelfAttention_v2 (3.4.2) neither.
        cfg.variant = r.out_proj ? Variant::Mha : r.mask ? Variant::Causal : Variant::SelfV2;
        break;
    case RecordedVariant::Gqa:
        cfg.variant = Variant::Gqa;
        cfg.kv_groups = r.kv_groups;
        cfg.rope = r.rope_base.has_value();
        if (r.rope_base) cfg.rope_base = *r.rope_base;
        break;
    case RecordedVariant::Swa:
        // sliding_window_size=None: the class masks as MultiHeadAttention does.
        cfg.variant = r.window ? Variant::Swa : Variant::Mha;
        if (r.window) cfg.window = *r.window;
        break;
    case RecordedVariant::Mla:
        cfg.variant = Variant::Mla;
        cfg.latent_dim = r.latent_dim;
        break;
    case RecordedVariant::Alibi: cfg.variant = Variant::Alibi; break;
    case RecordedVariant::SelfV1:  // 3.4.1; a mask buffer of the user's own: 004's causal section
        cfg.variant = Variant::SelfV1;
        cfg.causal = r.mask;
        break;
    case RecordedVariant::MhaWrapper: cfg.variant = Variant::MhaWrapper; break;
    }
    const bool wrapper = r.variant == RecordedVariant::MhaWrapper;
    if (!r.out_proj && r.heads > 1 && !wrapper)
        throw ModelFileError("a module of " + std::to_string(r.heads) + " heads without out_proj: attnscope checks "
                             "the book's MultiHeadAttention (3.6.2), its MultiHeadAttentionWrapper (3.6.1, the "
                             "setting variant \"mha-wrapper\") and its single-head classes");
    // The wrapper's modules are a head each: their d_out is the head's width.
    cfg.d_out = cfg.d_out_v = wrapper ? r.head_dim() : r.d_out;
    cfg.heads = r.heads;
    cfg.dropout = r.dropout;
    cfg.training = r.training;
    const bool biases = !r.biases_unintended() && r.b_query.has_value();
    const bool mla = r.variant == RecordedVariant::Mla;
    if (!r.biases_unintended() && (r.b_query.has_value() != r.b_key.has_value() ||
                                  r.b_query.has_value() != r.b_value.has_value() ||
                                  (mla && r.b_query.has_value() != r.b_DKV.has_value())))
        throw ModelFileError(std::string(mla ? "W_query, W_DKV, W_UK and W_UV" : "W_query, W_key and W_value") +
                             " do not all have a bias, or all none (qkv_bias is one setting)");
    cfg.qkv_bias = biases;
    AttentionModule m = build_attention(r.d_in, cfg);
    // One Projections a head for the stacked classes (the wrapper's columns of each head),
    // one holding every head for the split ones.
    const Eigen::Index width = r.head_dim();
    for (size_t h = 0; h < m.projections.size(); ++h) {
        const Eigen::Index from = static_cast<Eigen::Index>(h) * width;
        const auto W = [&](const Matrix& whole) { return wrapper ? Matrix(whole.middleCols(from, width)) : whole; };
        const auto b = [&](const std::optional<RowVector>& whole) -> std::optional<RowVector> {
            if (!biases) return std::nullopt;
            return wrapper ? RowVector(whole->segment(from, width)) : *whole;
        };
        Projections& p = m.projections[h];
        p.W_query = W(r.W_query);
        p.W_key = W(r.W_key);  // mla: W_UK
        p.W_value = W(r.W_value);
        p.b_query = b(r.b_query);
        p.b_key = b(r.b_key);
        p.b_value = b(r.b_value);
    }
    if (m.latent_down) {
        m.latent_down->weight = *r.W_DKV;
        m.latent_down->bias = biases ? r.b_DKV : std::nullopt;
    }
    if (r.out_proj) {
        m.out_proj->weight = *r.W_out;
        m.out_proj->bias = r.b_out;
    }
    return m;
}

// The heads' context vectors side by side, what out_proj reads (a single head's own).
const Matrix& heads_context(const Trace& t) { return t.heads.size() > 1 ? t.model.at("concat") : t.heads[0].at("context"); }

// Whether attnscope's run of the class computes `stage` (a recorded stage it does not, say
// dropped_weights of a class without dropout, is not a record of that class).
bool computes(const Trace& t, const std::string& stage) {
    if (stage == "output") return true;
    if (stage == "concat") return (t.heads.size() > 1 ? t.model.find("concat") : t.heads[0].find("context")) != nullptr;
    if (stage == "latents") return t.model.find("latents") != nullptr;
    return t.heads[0].find(stage) != nullptr;
}

// The stages as the check compares them: the whole stage, or one matrix a head.
std::vector<Matrix> ours_of(const RecordedAttention& r, const Trace& t, const std::string& stage) {
    if (stage == "weights" || stage == "dropped_weights") {
        std::vector<Matrix> heads;
        for (const HeadTrace& h : t.heads) heads.push_back(h.at(stage));
        return heads;
    }
    if (stage == "output") return {t.output.at(0)};
    if (stage == "concat") return {heads_context(t)};
    if (stage == "latents") return {t.model.at("latents")};
    // queries, keys, values: the heads side by side, before RoPE (what W_query and W_key
    // give); keys and values at their own width: each key/value group once.
    const int every = stage == "queries" ? 1 : r.heads / r.groups();
    Matrix whole(t.heads[0].at(stage).rows(), 0);
    for (size_t h = 0; h < t.heads.size(); h += static_cast<size_t>(every)) {
        const Matrix& part = t.heads[h].at(stage);
        whole.conservativeResize(part.rows(), whole.cols() + part.cols());
        whole.rightCols(part.cols()) = part;
    }
    return {whole};
}

double scale_of(const std::vector<Matrix>& stage) {
    double scale = 0.0;
    for (const Matrix& m : stage) scale = std::max(scale, stage_scale(m));
    return scale;
}

// The first cell of `yours` farther than `tolerance` from `ours`.
std::optional<CellDifference> first_difference(const std::string& stage, const std::vector<Matrix>& yours,
                                               const std::vector<Matrix>& ours, double tolerance) {
    for (size_t h = 0; h < ours.size(); ++h)
        for (Eigen::Index i = 0; i < ours[h].rows(); ++i)
            for (Eigen::Index j = 0; j < ours[h].cols(); ++j)
                if (!(std::abs(yours[h](i, j) - ours[h](i, j)) <= tolerance)) {
                    CellDifference d;
                    d.stage = stage;
                    d.head = ours.size() > 1 || stage == "weights" || stage == "dropped_weights" ? static_cast<int>(h) : -1;
                    d.row = i;
                    d.col = j;
                    d.yours = yours[h](i, j);
                    d.ours = ours[h](i, j);
                    d.tolerance = tolerance;
                    return d;
                }
    return std::nullopt;
}

// a·b written out: "0.43×0.12 + 0.15×0.81 + … = 0.31" (the first 6 terms).
std::string dot_text(const RowVector& a, const RowVector& b) {
    std::string text;
    for (Eigen::Index k = 0; k < a.size() && k < 6; ++k) text += (k ? " + " : "") + number(a(k)) + "×" + number(b(k));
    if (a.size() > 6) text += " + … (" + std::to_string(a.size()) + " terms)";
    return text + " = " + number(a.dot(b));
}

// A projection's cell: `from` row · W column (+ bias).
std::string projection_text(const std::string& cell, const char* from, const std::string& layer, const Matrix& x,
                            const Matrix& W, const std::optional<RowVector>& b, Eigen::Index i, Eigen::Index j) {
    std::string text = cell + " = " + from + " row · " + layer + " column" + (b ? " + bias" : "") + " = " +
                       dot_text(x.row(i), W.col(j).transpose());
    if (b) text += " + " + number((*b)(j)) + " = " + number(x.row(i).dot(W.col(j)) + (*b)(j));
    return text;
}

// The weights' cell of head `head`: score, scaling, RoPE's turn, ALiBi's bias, the mask, the softmax.
std::string weights_text(const RecordedAttention& r, const HeadTrace& head, Eigen::Index i, Eigen::Index j) {
    const bool rotated = head.find("queries_rotated") && head.find("keys_rotated");
    const Matrix& q = head.at(rotated ? "queries_rotated" : "queries");
    const Matrix& k = head.at(rotated ? "keys_rotated" : "keys");
    const Matrix& scaled = head.at(head.find("masked_scores") ? "masked_scores" : "scaled_scores");
    std::string text = std::string(rotated ? "score = rotated query " : "score = query ") + std::to_string(i) +
                       (rotated ? " · rotated key " : " · key ") + std::to_string(j) + " = " + dot_text(q.row(i), k.row(j)) +
                       "; ÷ √" + std::to_string(q.cols()) + " = " + number(head.at("scaled_scores")(i, j));
    if (std::isinf(scaled(i, j)))
        return text + (j > i ? "; masked (the future, −∞): weight 0"
                             : "; masked (−∞, outside the sliding window of " + std::to_string(r.window.value_or(0)) +
                                   " tokens): weight 0");
    if (head.find("position_bias"))
        text += "; + ALiBi's position bias −m·(" + std::to_string(i) + " − " + std::to_string(j) + ") = " +
                number(head.at("position_bias")(i, j)) + " → " + number(scaled(i, j));
    // softmax: exp(s_ij) / Σ_k exp(s_ik) over the keys the row sees (a masked one adds 0).
    std::string sum;
    int terms = 0;
    for (Eigen::Index c = 0; c < scaled.cols(); ++c) {
        if (std::isinf(scaled(i, c))) continue;
        if (++terms <= 6) sum += (terms > 1 ? " + " : "") + std::string("exp(") + number(scaled(i, c)) + ")";
    }
    if (terms > 6) sum += " + … (" + std::to_string(terms) + " keys)";
    return text + "; weight = exp(" + number(scaled(i, j)) + ") / (" + sum + ") = " + number(head.at("weights")(i, j));
}

// The cell worked out as attnscope computes it, from its own stages and the module it ran.
std::string arithmetic(const RecordedAttention& r, const AttentionModule& m, const Trace& t, const CellDifference& d) {
    const Eigen::Index i = d.row, j = d.col;
    const std::string cell = d.stage + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
    // The wrapper's queries, keys and values are its heads' side by side: column j is head
    // j / head_dim's own column j % head_dim, in that head's nn.Linear.
    const bool wrapper = r.variant == RecordedVariant::MhaWrapper &&
                         (d.stage == "queries" || d.stage == "keys" || d.stage == "values");
    const Eigen::Index hd = r.head_dim(), head = wrapper ? j / hd : 0, col = wrapper ? j % hd : j;
    const Projections& p = m.projections.at(static_cast<size_t>(head));
    const auto layer = [&](const char* name) {
        return wrapper ? "heads." + std::to_string(head) + "." + name : std::string(name);
    };
    const bool mla = m.latent_down.has_value();
    if (d.stage == "queries")
        return projection_text(cell, "input", layer("W_query"), r.input, p.W_query, p.b_query, i, col);
    if (d.stage == "latents")
        return projection_text(cell, "input", "W_DKV", r.input, m.latent_down->weight, m.latent_down->bias, i, j);
    if (d.stage == "keys" || d.stage == "values") {
        const bool keys = d.stage == "keys";
        const Matrix& W = keys ? p.W_key : p.W_value;
        const std::optional<RowVector>& b = keys ? p.b_key : p.b_value;
        if (mla) return projection_text(cell, "latents", keys ? "W_UK" : "W_UV", t.model.at("latents"), W, b, i, j);
        return projection_text(cell, "input", layer(keys ? "W_key" : "W_value"), r.input, W, b, i, col);
    }
    if (d.stage == "weights" || d.stage == "dropped_weights")
        return weights_text(r, t.heads.at(static_cast<size_t>(d.head)), i, j) +
               (d.stage == "dropped_weights" ? "; in evaluation dropout leaves it as it is" : "");
    // The heads' context side by side: what out_proj reads, or a class without one returns.
    if (d.stage == "concat" || (d.stage == "output" && !r.W_out)) {
        const int hd = r.head_dim(), h = static_cast<int>(j) / hd;
        const HeadTrace& head = t.heads.at(static_cast<size_t>(h));
        const Matrix& w = head.at(head.find("dropped_weights") ? "dropped_weights" : "weights");
        return (r.heads > 1 ? "head " + std::to_string(h) + "'s context[" : std::string(d.stage + " = context[")) +
               std::to_string(i) + "][" + std::to_string(j % hd) +
               "] = weights row · values column = " + dot_text(w.row(i), head.at("values").col(j % hd).transpose());
    }
    if (d.stage == "output" && r.W_out) {
        const Matrix& concat = heads_context(t);
        return "output[" + std::to_string(i) + "][" + std::to_string(j) + "] = heads' context row · out_proj column" +
               (r.b_out ? " + bias " + number((*r.b_out)(j)) : "") + " = " + dot_text(concat.row(i), r.W_out->col(j).transpose());
    }
    return "output = the heads' context vectors: weights · values";
}

std::string module_text(const RecordedAttention& r) {
    const std::string name = r.class_name.empty() ? std::string("the module") : r.class_name;
    if (r.variant == RecordedVariant::SelfV1)  // its constructor's settings: no heads, no dropout
        return name + "(d_in=" + std::to_string(r.d_in) + ", d_out=" + std::to_string(r.d_out) + ")" +
               (r.mask ? ", with a causal mask" : "");
    // The wrapper's d_out is each head's, as its constructor takes it.
    const int d_out = r.variant == RecordedVariant::MhaWrapper ? r.head_dim() : r.d_out;
    std::string settings = "d_in=" + std::to_string(r.d_in) + ", d_out=" + std::to_string(d_out) +
                           ", num_heads=" + std::to_string(r.heads);
    if (r.variant == RecordedVariant::Gqa)
        settings += ", num_kv_groups=" + std::to_string(r.kv_groups) +
                    (r.rope_base ? ", rope_base=" + std::to_string(*r.rope_base) : "");
    if (r.variant == RecordedVariant::Swa)
        settings += ", sliding_window_size=" + (r.window ? std::to_string(*r.window) : std::string("None"));
    if (r.variant == RecordedVariant::Mla) settings += ", latent_dim=" + std::to_string(r.latent_dim);
    if (r.stated_qkv_bias) settings += std::string(", qkv_bias=") + (*r.stated_qkv_bias ? "True" : "False");
    return name + "(" + settings + ", dropout=" + number(r.dropout) + (r.training ? ", training" : ", eval") + ")";
}

}  // namespace

AttentionCheck check_attention(const RecordedAttention& r) {
    AttentionCheck check;
    check.module = module_text(r);
    Trace t;
    std::optional<AttentionModule> m;
    try {
        m = recorded_module(r);
        t = forward(*m, r.input, nullptr);
    } catch (const ConfigError& e) {
        throw ModelFileError(std::string("the recorded settings: ") + e.what());
    }
    if (r.biases_unintended())
        check.notes.push_back("checked as qkv_bias=False, as you stated: attnscope's projections have no bias");
    if (r.stated_qkv_bias == true && !r.b_query)
        check.notes.push_back("you stated qkv_bias=True, but W_query has no bias: was bias=qkv_bias passed to "
                              "its nn.Linear?");
    const bool draws = r.training && r.dropout > 0.0;
    for (const std::string stage :
         {"queries", "latents", "keys", "values", "weights", "dropped_weights", "concat", "output"}) {
        const auto it = r.stages.find(stage);
        if (it == r.stages.end()) continue;
        if (draws && (stage == "dropped_weights" || stage == "concat" || stage == "output")) {
            check.notes.push_back(stage + " not compared: the module is training with dropout " + number(r.dropout) +
                                  ", whose random draws are your generator's; record it after .eval() to check them");
            continue;
        }
        if (!computes(t, stage))
            throw ModelFileError("stage." + stage + " was recorded, but " + check.module + " computes no " + stage +
                                 " (attnscope's " + variant_name(m->cfg.variant) + ")");
        const std::vector<Matrix> ours = ours_of(r, t, stage);
        const double tolerance = kStageRelative * std::max(scale_of(ours), 1e-30);
        check.first = first_difference(stage, it->second, ours, tolerance);
        check.compared.push_back({stage, it->second, ours, tolerance});
        if (!check.first) {
            check.matched.push_back(stage);
            continue;
        }
        check.first->arithmetic = arithmetic(r, *m, t, *check.first);
        check.diagnoses = diagnose(r, stage, it->second, tolerance);
        return check;
    }
    if (r.variant == RecordedVariant::SelfV1) {
        // The recorder sees x @ W and the softmax through torch's function mode where it can.
        std::vector<std::string> unseen;
        for (const char* stage : {"queries", "keys", "values", "weights"})
            if (!r.stages.count(stage)) unseen.push_back(stage);
        std::string list;
        for (size_t i = 0; i < unseen.size(); ++i)
            list += (i == 0 ? "" : i + 1 == unseen.size() ? " and " : ", ") + unseen[i];
        if (!unseen.empty())
            check.notes.push_back(list + " not seen: the class's W_query, W_key and W_value are nn.Parameter, with no "
                                         "module to hook (the recorder watches x @ W and the softmax through torch's "
                                         "function mode, torch 1.13 on, and did not see these); its output was compared");
    } else if (!r.stages.count("weights")) {
        check.notes.push_back("weights not recorded: the module has no dropout to hook (the book's SelfAttention_v2); "
                              "its output was compared");
    }
    return check;
}

}  // namespace attn
