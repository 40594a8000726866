#include "check/head_stages.h"

#include <cmath>
#include <limits>

#include "attention/head_forward.h"         // attention_mask, alibi_bias
#include "attention/rope.h"
#include "attention/variants/weight_split.h"  // alibi_slopes
#include "check/mistakes.h"                 // head_columns, viewed_without_transpose

namespace attn {

std::vector<Matrix> for_each_head(const RecordedAttention& r, const std::vector<Matrix>& parts, bool repeated_groups) {
    std::vector<Matrix> heads;
    for (int h = 0; h < r.heads; ++h)
        heads.push_back(parts.at(static_cast<size_t>(repeated_groups ? h % r.groups() : r.group_of(h))));
    return heads;
}

std::vector<HeadParts> head_parts(const RecordedAttention& r, const Matrix& queries, const Matrix& keys,
                                  const Matrix& values, HeadSplit how) {
    const auto split = [&](const Matrix& whole, int n) {
        return how.without_transpose ? viewed_without_transpose(whole, n) : head_columns(whole, n);
    };
    const std::vector<Matrix> q = split(queries, r.heads);
    const std::vector<Matrix> k = for_each_head(r, split(keys, r.groups()), how.repeated_groups);
    const std::vector<Matrix> v = for_each_head(r, split(values, r.groups()), how.repeated_groups);
    std::optional<RopeTables> rope;
    if (r.rope_base) rope = rope_tables(r.tokens(), r.head_dim(), *r.rope_base);
    std::vector<HeadParts> heads;
    for (int h = 0; h < r.heads; ++h) {
        const auto i = static_cast<size_t>(h);
        HeadParts p;
        p.q = rope ? apply_rope(q[i], *rope) : q[i];
        p.k = rope ? apply_rope(k[i], *rope) : k[i];
        p.k_plain = k[i];
        p.v = v[i];
        p.v_turned = rope ? apply_rope(v[i], *rope) : v[i];
        p.bias = position_bias(r, h);
        heads.push_back(std::move(p));
    }
    return heads;
}

std::optional<std::vector<HeadParts>> recorded_head_parts(const RecordedAttention& r) {
    const auto& st = r.stages;
    if (!st.count("queries") || !st.count("keys") || !st.count("values")) return std::nullopt;
    return head_parts(r, st.at("queries")[0], st.at("keys")[0], st.at("values")[0]);
}

Matrix hidden_keys(const RecordedAttention& r) {
    if (!r.causal()) return Matrix::Zero(r.tokens(), r.tokens());
    return attention_mask(r.tokens(), r.tokens(), true, r.window.value_or(0));
}

Matrix masked_where(Matrix scores, const Matrix& hidden, float fill) {
    for (Eigen::Index i = 0; i < scores.size(); ++i)
        if (hidden.data()[i] > 0.5f) scores.data()[i] = fill;
    return scores;
}

Matrix position_bias(const RecordedAttention& r, int h) {
    const Eigen::Index T = r.tokens();
    Matrix bias = Matrix::Zero(T, T);
    if (r.variant != RecordedVariant::Alibi) return bias;
    const float slope = r.slopes ? (*r.slopes)[static_cast<size_t>(h)] : alibi_slopes(r.heads)[static_cast<size_t>(h)];
    for (Eigen::Index i = 0; i < T; ++i)
        for (Eigen::Index j = 0; j < T; ++j) bias(i, j) = alibi_bias(slope, i, j);
    return bias;
}

double closest_gap(const std::vector<Matrix>& a, const std::vector<Matrix>& b) {
    if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
    double gap = 0.0;
    for (size_t h = 0; h < a.size(); ++h) {
        if (a[h].rows() != b[h].rows() || a[h].cols() != b[h].cols()) return std::numeric_limits<double>::infinity();
        const Matrix d = a[h] - b[h];
        for (Eigen::Index i = 0; i < d.size(); ++i)  // nan (0/0 of a mistake, or of inf - inf) counts as far
            gap = std::max(gap, std::isnan(d.data()[i]) ? std::numeric_limits<double>::infinity()
                                                        : static_cast<double>(std::abs(d.data()[i])));
    }
    return gap;
}

}  // namespace attn
