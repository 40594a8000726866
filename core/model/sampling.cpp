#include "model/sampling.h"

#include <algorithm>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "attention/head_forward.h"
#include "model/next_token.h"

namespace attn {

bool operator==(const Sampling& a, const Sampling& b) {
    return a.temperature == b.temperature && a.top_k == b.top_k && a.seed == b.seed;
}

void keep_top_k(RowVector& logits, int64_t k) {
    const auto n = logits.size();
    if (k < 1 || k > n)
        throw ConfigError("--top-k " + std::to_string(k) + ": the model's vocabulary has " + std::to_string(n) +
                          " tokens");
    if (k == n) return;  // the k-th largest is the smallest: nothing is below it
    std::vector<float> sorted(logits.data(), logits.data() + n);
    std::nth_element(sorted.begin(), sorted.begin() + (k - 1), sorted.end(), std::greater<float>());
    const float min_val = sorted[static_cast<size_t>(k - 1)];  // torch.topk(logits, k)[0][:, -1]
    for (Eigen::Index i = 0; i < n; ++i)
        if (logits(i) < min_val) logits(i) = kMinusInf;
}

RowVector draw_distribution(const RowVector& row, const Sampling& how) {
    RowVector logits = row;
    if (how.top_k) keep_top_k(logits, *how.top_k);
    // logits / temperature: torch narrows the Python float to float32 and divides
    // (a true division, not a product with the reciprocal: checked against torch).
    logits /= static_cast<float>(how.temperature);
    softmax_row(logits.data(), logits.size(), logits.size(), 1.0f, 0);  // torch.softmax(logits, dim=-1)
    return logits;
}

int64_t TokenSampler::next(const RowVector& row) {
    if (!how_.sampled()) {
        // With temperature 0 the filter changes no argmax (the largest logit stays), but
        // it is applied all the same, as generate does.
        RowVector logits = row;
        if (how_.top_k) keep_top_k(logits, *how_.top_k);
        return most_probable(logits);
    }
    const RowVector probs = draw_distribution(row, how_);
    ++sampled_tokens_;
    return torch_multinomial(gen_, probs);
}

}  // namespace attn
