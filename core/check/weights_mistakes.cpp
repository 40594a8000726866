// The weights' mistakes (mistakes.h): each a head's weights computed from the user's own
// queries, keys and values as the mistake computes them, with the variant's own mask and
// bias where it has them; and dropout put on the scores, whose hook then sees scores.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "attention/attention.h"  // softmax_rows, ConfigError
#include "attention/head_forward.h"  // attention_mask
#include "attention/variants/weight_split.h"  // alibi_slopes
#include "base/decimal_text.h"
#include "check/head_stages.h"
#include "check/mistakes.h"
#include "numerics/tolerance.h"

namespace attn {

namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

Matrix softmax_columns(const Matrix& x) { return softmax_rows(x.transpose()).transpose(); }

// The past hidden instead of the future: j < i.
Matrix past_hidden(Eigen::Index T) {
    Matrix hidden = Matrix::Zero(T, T);
    for (Eigen::Index i = 0; i < T; ++i) hidden.row(i).head(i).setOnes();
    return hidden;
}

std::string root(int n) { return "√" + std::to_string(n); }

// The weights a head gives when it makes the mistake.
struct WeightsMistake {
    std::string words;
    std::function<Matrix(const HeadParts& p)> weights;
};

// Whether every head's weights under `m` are `yours`. A mistake whose softmax meets a row
// that is -inf throughout gives no weights (torch's NaN), so not the user's.
bool gives(const std::vector<HeadParts>& heads, const WeightsMistake& m, const std::vector<Matrix>& yours,
           double tolerance) {
    std::vector<Matrix> weights;
    try {
        for (const HeadParts& p : heads) weights.push_back(m.weights(p));
    } catch (const ConfigError&) {
        return false;
    }
    return closest_gap(weights, yours) <= tolerance;
}

// The catalogue for this record: what its variant can make.
std::vector<WeightsMistake> catalogue(const RecordedAttention& r) {
    const Matrix hidden = hidden_keys(r);
    const bool causal = r.causal();
    const auto s = static_cast<float>(std::sqrt(static_cast<double>(r.head_dim())));
    // What goes into the softmax: the scores divided by `scale`, ALiBi's bias added (zero
    // for the others), hidden keys -inf.
    const auto into_softmax = [hidden](const Matrix& scores, float scale, const Matrix& bias) {
        return masked_where(Matrix(scores / scale + bias), hidden, kMinusInfinity);
    };
    const std::string head_root = root(r.head_dim());
    std::vector<WeightsMistake> list = {
        {"no scaling: the scores go into the softmax without being divided by " + head_root,
         [=](const HeadParts& p) { return softmax_rows(into_softmax(p.q * p.k.transpose(), 1.0f, p.bias)); }},
        {"the softmax over the wrong dimension (dim=-2: each column sums to 1, not each row)",
         [=](const HeadParts& p) { return softmax_columns(into_softmax(p.q * p.k.transpose(), s, p.bias)); }},
        {"keys and values swapped: the scores are queries · valuesᵀ",
         [=](const HeadParts& p) { return softmax_rows(into_softmax(p.q * p.v.transpose(), s, p.bias)); }},
        {"the queries used as keys: the scores are queries · queriesᵀ",
         [=](const HeadParts& p) { return softmax_rows(into_softmax(p.q * p.q.transpose(), s, p.bias)); }},
    };
    if (r.rope_base)  // swapped before RoPE: the values turned as the keys would have been
        list.push_back({list[2].words, [=](const HeadParts& p) {
                            return softmax_rows(into_softmax(p.q * p.v_turned.transpose(), s, p.bias));
                        }});
    if (causal) {
        const auto scaled = [s](const HeadParts& p) { return Matrix((p.q * p.k.transpose()) / s + p.bias); };
        list.push_back({"the mask applied after the softmax without renormalising: the hidden keys' weights set to 0, "
                        "the rows no longer summing to 1",
                        [=](const HeadParts& p) { return masked_where(softmax_rows(scaled(p)), hidden, 0.0f); }});
        list.push_back({"the mask filled with 0 instead of −∞ (masked_fill(mask, 0)): the hidden keys keep a share of "
                        "the softmax",
                        [=](const HeadParts& p) { return softmax_rows(masked_where(scaled(p), hidden, 0.0f)); }});
        list.push_back({"no causal mask: every token sees the tokens after it",
                        [=](const HeadParts& p) { return softmax_rows(scaled(p)); }});
        // The window's own mask has no one "wrong side": tried where the mask is the triangle.
        if (!r.window) {
            const Matrix past = past_hidden(r.tokens());
            list.push_back({"the mask on the wrong side of the diagonal (tril for triu): the past is hidden and the "
                            "future seen",
                            [=](const HeadParts& p) {
                                return softmax_rows(masked_where(scaled(p), past, kMinusInfinity));
                            }});
        }
    }
    if (r.window && *r.window < r.tokens()) {
        const Matrix future = attention_mask(r.tokens(), r.tokens(), true, 0);
        list.push_back({"the sliding window not applied: each query sees every key before it (a plain causal mask), "
                        "not only the last " + std::to_string(*r.window),
                        [=](const HeadParts& p) {
                            return softmax_rows(masked_where(Matrix((p.q * p.k.transpose()) / s), future, kMinusInfinity));
                        }});
    }
    if (r.variant == RecordedVariant::Alibi)
        list.push_back({"ALiBi's bias with the wrong sign (+m·(i − j)): each head prefers the distant keys",
                        [=](const HeadParts& p) { return softmax_rows(into_softmax(p.q * p.k.transpose(), s, -p.bias)); }});
    // The scale each wrong root gives, where it is not the head's. A wrapper's head has no
    // d_out but its own (the heads side by side are no number its code holds).
    const bool wrapper = r.variant == RecordedVariant::MhaWrapper;
    for (const auto& [n, what] : {std::pair<int, const char*>{r.d_in, "d_in"}, {r.d_out, "d_out"}})
        if (n != r.head_dim() && !(wrapper && std::string(what) == "d_out"))
            list.push_back({"the scores divided by " + root(n) + " (" + what + ") instead of the head's " + head_root +
                                " (head_dim)",
                            [=, n = n](const HeadParts& p) {
                                return softmax_rows(
                                    into_softmax(p.q * p.k.transpose(), std::sqrt(static_cast<float>(n)), p.bias));
                            }});
    return list;
}

// The module's own slopes where they are not the paper's: found by reading them.
std::optional<std::string> wrong_slopes(const RecordedAttention& r) {
    if (r.variant != RecordedVariant::Alibi || !r.slopes) return std::nullopt;
    const std::vector<float> paper = alibi_slopes(r.heads);
    for (int h = 0; h < r.heads; ++h) {
        const float mine = (*r.slopes)[static_cast<size_t>(h)], theirs = paper[static_cast<size_t>(h)];
        if (!(std::abs(mine - theirs) <= kStageRelative * theirs))
            return "ALiBi's slopes are not the paper's: head " + std::to_string(h) + "'s is " + shortest_decimal(mine) +
                   ", the paper's " + shortest_decimal(theirs) + " (its get_slopes for " + std::to_string(r.heads) +
                   " heads)";
    }
    return std::nullopt;
}

// Whether `yours` is `scores` cell by cell: the same infinity, or finite within `tolerance`.
bool same_scores(const std::vector<Matrix>& yours, const std::vector<Matrix>& scores, double tolerance) {
    for (size_t h = 0; h < scores.size(); ++h)
        for (Eigen::Index i = 0; i < scores[h].size(); ++i) {
            const float y = yours[h].data()[i], s = scores[h].data()[i];
            if (std::isinf(s) ? y != s : !(std::abs(y - s) <= tolerance)) return false;
        }
    return true;
}

// self.dropout put on the scores: what its hook saw going in (the "weights") are scores,
// taken at one of the steps before the softmax.
std::optional<std::string> dropout_on_scores(const RecordedAttention& r, const std::vector<HeadParts>& heads,
                                             const std::vector<Matrix>& yours, double tolerance) {
    const auto s = static_cast<float>(std::sqrt(static_cast<double>(r.head_dim())));
    const Matrix hidden = hidden_keys(r);
    const bool alibi = r.variant == RecordedVariant::Alibi;
    struct Step {
        std::string got;
        bool masked;
        std::function<Matrix(const HeadParts&)> scores;
    };
    const std::string scaled = "the scores divided by " + root(r.head_dim());
    std::vector<Step> steps = {
        {"queries · keysᵀ, not yet scaled", false, [](const HeadParts& p) { return Matrix(p.q * p.k.transpose()); }},
        {scaled, false, [s](const HeadParts& p) { return Matrix((p.q * p.k.transpose()) / s); }},
    };
    if (alibi)
        steps.push_back({scaled + " with ALiBi's position bias", false,
                         [s](const HeadParts& p) { return Matrix((p.q * p.k.transpose()) / s + p.bias); }});
    if (r.causal()) {
        if (!alibi)  // the book's ch04 classes mask, then scale
            steps.push_back({"the scores masked with −∞, not yet scaled", true, [hidden](const HeadParts& p) {
                                 return masked_where(p.q * p.k.transpose(), hidden, kMinusInfinity);
                             }});
        steps.push_back({scaled + (alibi ? " with ALiBi's position bias" : "") + ", masked with −∞", true,
                         [s, hidden](const HeadParts& p) {
                             return masked_where(Matrix((p.q * p.k.transpose()) / s + p.bias), hidden, kMinusInfinity);
                         }});
    }
    for (const Step& step : steps) {
        std::vector<Matrix> scores;
        double scale = 0.0;
        for (const HeadParts& p : heads) {
            scores.push_back(step.scores(p));
            scale = std::max(scale, stage_scale(scores.back()));
        }
        if (same_scores(yours, scores, std::max(tolerance, kStageRelative * scale)))
            return std::string("dropout applied to the scores, before ") +
                   (r.causal() && !step.masked ? "the mask and the softmax" : "the softmax") + " (it got " + step.got +
                   "): self.dropout belongs on the attention weights, after the softmax";
    }
    return std::nullopt;
}

}  // namespace

std::vector<std::string> weights_mistakes(const RecordedAttention& r, const std::vector<Matrix>& yours,
                                          double tolerance) {
    std::vector<std::string> found;
    if (const auto slopes = wrong_slopes(r)) found.push_back(*slopes);
    const std::optional<std::vector<HeadParts>> heads = recorded_head_parts(r);
    if (!heads) return found;
    // SelfAttention_v1 has no dropout: its weights are the softmax's output, never scores.
    if (r.variant != RecordedVariant::SelfV1)
        if (const auto scores = dropout_on_scores(r, *heads, yours, tolerance)) {
            found.push_back(*scores);
            return found;
        }
    for (const WeightsMistake& m : catalogue(r))
        if (std::find(found.begin(), found.end(), m.words) == found.end() && gives(*heads, m, yours, tolerance))
            found.push_back(m.words);
    // The heads split otherwise: the right shapes, the wrong numbers.
    const auto& st = r.stages;
    const auto split_as = [&](HeadSplit how) {
        return head_parts(r, st.at("queries")[0], st.at("keys")[0], st.at("values")[0], how);
    };
    const Matrix hidden = hidden_keys(r);
    const auto s = static_cast<float>(std::sqrt(static_cast<double>(r.head_dim())));
    const WeightsMistake right{"", [&](const HeadParts& p) {
                                   return softmax_rows(
                                       masked_where(Matrix((p.q * p.k.transpose()) / s + p.bias), hidden, kMinusInfinity));
                               }};
    // The wrapper's heads are modules of their own: nothing is split.
    const bool wrapper = r.variant == RecordedVariant::MhaWrapper;
    if (r.heads > 1 && !wrapper && gives(split_as({true, false}), right, yours, tolerance))
        found.push_back("the heads split by view(b, num_heads, num_tokens, head_dim) without the transpose: each "
                        "head reads other tokens' features");
    if (r.groups() > 1 && r.groups() < r.heads && gives(split_as({false, true}), right, yours, tolerance))
        found.push_back("the key/value groups shared with repeat instead of repeat_interleave: head h reads group "
                        "h mod num_kv_groups, not h // (num_heads / num_kv_groups)");
    return found;
}

}  // namespace attn
