#include "check/mistakes.h"

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "attention/attention.h"  // softmax_rows

namespace attn {

std::vector<Matrix> head_columns(const Matrix& whole, int heads) {
    const Eigen::Index hd = whole.cols() / heads;
    std::vector<Matrix> out;
    for (int h = 0; h < heads; ++h) out.push_back(whole.middleCols(h * hd, hd));  // T x hd
    return out;
}

std::vector<Matrix> viewed_without_transpose(const Matrix& whole, int heads) {
    const Eigen::Index T = whole.rows(), hd = whole.cols() / heads;
    // The row-major T x d_out buffer as heads x T x hd: head h is T consecutive rows of hd.
    const Eigen::Map<const Matrix> rows(whole.data(), T * heads, hd);
    std::vector<Matrix> out;
    for (int h = 0; h < heads; ++h) out.push_back(rows.middleRows(h * T, T));
    return out;
}

namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

// Where a causal mask hides: the future (j > i), or with `past` the past (j < i).
Matrix masked(Matrix scores, bool past, float fill) {
    for (Eigen::Index i = 0; i < scores.rows(); ++i)
        for (Eigen::Index j = 0; j < scores.cols(); ++j)
            if (past ? j < i : j > i) scores(i, j) = fill;
    return scores;
}

Matrix softmax_columns(const Matrix& x) { return softmax_rows(x.transpose()).transpose(); }

// The weights a head gives when it does `how` to its scores.
struct WeightsMistake {
    std::string words;
    std::function<Matrix(const Matrix& queries, const Matrix& keys, const Matrix& values, double scale)> weights;
    bool causal_only = false;  // a mistake of the mask: a module without one cannot make it
};

double closest_gap(const std::vector<Matrix>& a, const std::vector<Matrix>& b) {
    double gap = 0.0;
    for (size_t h = 0; h < a.size(); ++h) {
        if (a[h].rows() != b[h].rows() || a[h].cols() != b[h].cols()) return std::numeric_limits<double>::infinity();
        const Matrix d = a[h] - b[h];
        for (Eigen::Index i = 0; i < d.size(); ++i)  // nan (0/0 of a mistake) counts as far
            gap = std::max(gap, std::isnan(d.data()[i]) ? std::numeric_limits<double>::infinity()
                                                        : static_cast<double>(std::abs(d.data()[i])));
    }
    return gap;
}

std::string root(int n) { return "√" + std::to_string(n); }

std::vector<std::string> weights_mistakes(const RecordedAttention& r, const std::vector<Matrix>& yours, double tolerance) {
    const auto& stages = r.stages;
    if (!stages.count("queries") || !stages.count("keys") || !stages.count("values")) return {};
    const Matrix& Q = stages.at("queries")[0];
    const Matrix& K = stages.at("keys")[0];
    const Matrix& V = stages.at("values")[0];
    const bool causal = r.mask;
    const double head = std::sqrt(static_cast<double>(r.head_dim()));
    const auto softmax_masked = [causal](const Matrix& scores) {
        return softmax_rows(causal ? masked(scores, false, kMinusInfinity) : scores);
    };
    const std::string head_root = root(r.head_dim());
    std::vector<WeightsMistake> catalogue = {
        {"no scaling: the scores go into the softmax without being divided by " + head_root,
         [&](const Matrix& q, const Matrix& k, const Matrix&, double) { return softmax_masked(q * k.transpose()); }},
        {"the softmax over the wrong dimension (dim=-2: each column sums to 1, not each row)",
         [&](const Matrix& q, const Matrix& k, const Matrix&, double s) {
             const Matrix scaled = (q * k.transpose()) / static_cast<float>(s);
             return softmax_columns(causal ? masked(scaled, false, kMinusInfinity) : scaled);
         }},
        {"the mask applied after the softmax without renormalising: the future's weights set to 0, the rows no "
         "longer summing to 1",
         [&](const Matrix& q, const Matrix& k, const Matrix&, double s) {
             return masked(softmax_rows((q * k.transpose()) / static_cast<float>(s)), false, 0.0f);
         },
         true},
        {"the mask filled with 0 instead of −∞ (masked_fill(mask, 0)): the future keeps a share of the softmax",
         [&](const Matrix& q, const Matrix& k, const Matrix&, double s) {
             return softmax_rows(masked((q * k.transpose()) / static_cast<float>(s), false, 0.0f));
         },
         true},
        {"the mask on the wrong side of the diagonal (tril for triu): the past is hidden and the future seen",
         [&](const Matrix& q, const Matrix& k, const Matrix&, double s) {
             return softmax_rows(masked((q * k.transpose()) / static_cast<float>(s), true, kMinusInfinity));
         },
         true},
        {"no causal mask: every token sees the tokens after it",
         [&](const Matrix& q, const Matrix& k, const Matrix&, double s) {
             return softmax_rows((q * k.transpose()) / static_cast<float>(s));
         },
         true},
        {"keys and values swapped: the scores are queries · valuesᵀ",
         [&](const Matrix& q, const Matrix&, const Matrix& v, double s) {
             return softmax_masked((q * v.transpose()) / static_cast<float>(s));
         }},
        {"the queries used as keys: the scores are queries · queriesᵀ",
         [&](const Matrix& q, const Matrix&, const Matrix&, double s) {
             return softmax_masked((q * q.transpose()) / static_cast<float>(s));
         }},
    };
    // The scale each wrong root gives, where it is not the head's.
    for (const auto& [n, what] : {std::pair<int, const char*>{r.d_in, "d_in"}, {r.d_out, "d_out"}})
        if (n != r.head_dim())
            catalogue.push_back({"the scores divided by " + root(n) + " (" + what + ") instead of the head's " + head_root +
                                     " (head_dim)",
                                 [&, n = n](const Matrix& q, const Matrix& k, const Matrix&, double) {
                                     return softmax_masked((q * k.transpose()) / std::sqrt(static_cast<float>(n)));
                                 }});
    std::vector<std::string> found;
    const auto tried = [&](const std::vector<Matrix>& q, const std::vector<Matrix>& k, const std::vector<Matrix>& v,
                           const WeightsMistake& m) {
        std::vector<Matrix> weights;
        for (int h = 0; h < r.heads; ++h) weights.push_back(m.weights(q[h], k[h], v[h], head));
        return closest_gap(weights, yours) <= tolerance;
    };
    const std::vector<Matrix> q = head_columns(Q, r.heads), k = head_columns(K, r.heads), v = head_columns(V, r.heads);
    for (const WeightsMistake& m : catalogue)
        if ((!m.causal_only || causal) && tried(q, k, v, m)) found.push_back(m.words);
    if (r.heads > 1) {  // view(b, heads, T, head_dim): the right shape, the wrong numbers
        const WeightsMistake right{"", [&](const Matrix& q_, const Matrix& k_, const Matrix&, double s) {
                                       return softmax_masked((q_ * k_.transpose()) / static_cast<float>(s));
                                   }};
        if (tried(viewed_without_transpose(Q, r.heads), viewed_without_transpose(K, r.heads),
                  viewed_without_transpose(V, r.heads), right))
            found.push_back("the heads split by view(b, num_heads, num_tokens, head_dim) without the transpose: each "
                            "head reads other tokens' features");
    }
    return found;
}

// Dropout in evaluation mode is the identity: weights that came out with some zeroed and
// the rest scaled by 1/(1 - p) went through a dropout still training.
std::vector<std::string> dropout_mistakes(const RecordedAttention& r, const std::vector<Matrix>& yours, double tolerance) {
    if (r.training || r.dropout <= 0.0 || r.dropout >= 1.0 || !r.stages.count("weights")) return {};
    const std::vector<Matrix>& before = r.stages.at("weights");
    const auto keep = static_cast<float>(1.0 / (1.0 - r.dropout));
    bool dropped = false;
    for (size_t h = 0; h < yours.size(); ++h)
        for (Eigen::Index i = 0; i < yours[h].size(); ++i) {
            const float y = yours[h].data()[i], w = before[h].data()[i];
            if (std::abs(y) <= tolerance && std::abs(w) > tolerance) dropped = true;
            else if (std::abs(y - w * keep) > tolerance) return {};
        }
    if (!dropped) return {};
    return {"dropout left on in evaluation: the module's forward calls the dropout while the module is not training "
            "(torch.nn.functional.dropout(..., training=True), or a dropout that is not the module's own)"};
}

// Each head's context from the user's own weights (after dropout, where recorded) and their
// `with` ("values"; "keys" for the keys-as-values mistake): T x head_dim a head.
std::optional<std::vector<Matrix>> head_contexts(const RecordedAttention& r, const char* with) {
    const auto& st = r.stages;
    const char* weights_stage = st.count("dropped_weights") ? "dropped_weights" : "weights";
    if (!st.count(weights_stage) || !st.count(with)) return std::nullopt;
    const std::vector<Matrix>& w = st.at(weights_stage);
    const std::vector<Matrix> v = head_columns(st.at(with)[0], r.heads);
    std::vector<Matrix> contexts;
    for (int h = 0; h < r.heads; ++h) contexts.push_back(w[h] * v[h]);
    return contexts;
}

// The heads' parts side by side (T x d_out), in their order or the last head first.
Matrix side_by_side(const std::vector<Matrix>& parts, bool reversed = false) {
    const auto heads = static_cast<int>(parts.size());
    const Eigen::Index hd = parts[0].cols();
    Matrix all(parts[0].rows(), hd * heads);
    for (int h = 0; h < heads; ++h) all.middleCols(h * hd, hd) = parts[static_cast<size_t>(reversed ? heads - 1 - h : h)];
    return all;
}

std::vector<std::string> concat_mistakes(const RecordedAttention& r, const std::vector<Matrix>& yours, double tolerance) {
    const std::optional<std::vector<Matrix>> contexts = head_contexts(r, "values");
    if (!contexts) return {};
    std::vector<std::string> found;
    const auto gives = [&](const Matrix& m) { return closest_gap({m}, yours) <= tolerance; };
    if (r.heads > 1 && gives(side_by_side(*contexts, true)))
        found.push_back("the heads' context vectors concatenated in the wrong order (the last head first)");
    if (r.heads > 1) {  // the heads x T x hd contexts' memory read as T x d_out
        const Eigen::Index T = r.tokens(), hd = r.head_dim();
        Matrix stacked(T * r.heads, hd);
        for (int h = 0; h < r.heads; ++h) stacked.middleRows(h * T, T) = (*contexts)[static_cast<size_t>(h)];
        if (gives(Eigen::Map<const Matrix>(stacked.data(), T, r.d_out)))
            found.push_back("the heads put back together by view(b, num_tokens, d_out) without transpose(1, 2) first: "
                            "each row mixes tokens");
    }
    if (const auto with_keys = head_contexts(r, "keys"); with_keys && gives(side_by_side(*with_keys)))
        found.push_back("the keys used as values: the context is weights · keys");
    return found;
}

std::vector<std::string> output_mistakes(const RecordedAttention& r, const std::vector<Matrix>& yours, double tolerance) {
    std::vector<std::string> found;
    const auto gives = [&](const Matrix& m) { return closest_gap({m}, yours) <= tolerance; };
    if (r.W_out) {
        // The input out_proj saw, else (a forward that never called it) what it should have.
        std::optional<Matrix> concat;
        if (r.stages.count("concat")) concat = r.stages.at("concat")[0];
        else if (const auto contexts = head_contexts(r, "values")) concat = side_by_side(*contexts);
        if (!concat) return found;
        const auto out_proj = [&](const Matrix& x) {
            Matrix y = x * *r.W_out;
            if (r.b_out) y.rowwise() += *r.b_out;
            return y;
        };
        if (gives(*concat)) found.push_back("no out_proj: the module returns the heads' context vectors as they are");
        if (gives(out_proj(out_proj(*concat)))) found.push_back("out_proj applied twice");
        return found;
    }
    // A single head's output is its context vectors.
    if (const auto with_keys = head_contexts(r, "keys"); with_keys && gives(side_by_side(*with_keys)))
        found.push_back("the keys used as values: the context is weights · keys");
    return found;
}

}  // namespace

std::vector<std::string> diagnose(const RecordedAttention& r, const std::string& stage, const std::vector<Matrix>& yours,
                                  double tolerance) {
    if (stage == "weights") return weights_mistakes(r, yours, tolerance);
    if (stage == "dropped_weights") return dropout_mistakes(r, yours, tolerance);
    if (stage == "concat") return concat_mistakes(r, yours, tolerance);
    if (stage == "output") return output_mistakes(r, yours, tolerance);
    return {};
}

}  // namespace attn
