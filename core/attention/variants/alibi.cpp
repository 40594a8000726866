// MultiHeadAttention with ALiBi's linear biases (Press, Smith and Lewis, "Train Short, Test
// Long", 2022; BLOOM, MPT): no position embedding; head h adds -m_h * (i - j) to the
// scaled score of query i and key j, so each head prefers recent keys, as steeply as its
// slope m_h says. Its layers and cache are MultiHeadAttention's.
#include <cmath>

#include "attention/variants/weight_split.h"

namespace attn {

// The paper's slopes (its get_slopes): for n heads, n a power of 2, the geometric series
// 2^(-8/n), 2^(-16/n), ...; otherwise the series of the largest power of 2 below n, then
// every other slope of twice that many. In double as Python computes them (the paper's
// 2^-(2^-(log2 n - 3)) is 2^(-8/n) exactly for a power of 2), narrowed to float as
// torch.tensor(list) does.
std::vector<float> alibi_slopes(int heads) {
    const auto power_of_2 = [](int n) {
        const double start = std::pow(2.0, -8.0 / n);
        std::vector<double> out;
        for (int i = 0; i < n; ++i) out.push_back(start * std::pow(start, i));
        return out;
    };
    int closest = 1;  // the largest power of 2 not above heads
    while (closest * 2 <= heads) closest *= 2;
    std::vector<double> slopes = power_of_2(closest);
    const std::vector<double> doubled = power_of_2(2 * closest);
    for (int i = 0; closest + i < heads; ++i) slopes.push_back(doubled[static_cast<size_t>(2 * i)]);
    return std::vector<float>(slopes.begin(), slopes.end());
}

HeadWork alibi(const AttentionModule& m, const Matrix& x, const Matrix*, const KeptStages& keep, Trace& t) {
    add_out_proj(m, t);
    const Projections& p = m.projections[0];
    SplitProjections split;
    split.queries = project(x, p.W_query, p.b_query);  // T x d_out
    split.keys = project(x, p.W_key, p.b_key);         // T x d_out
    split.values = project(x, p.W_value, p.b_value);   // T x d_out
    split.alibi_slopes = alibi_slopes(m.cfg.heads);
    return attend_split_heads(m, std::move(split), keep, t);
}

}  // namespace attn
