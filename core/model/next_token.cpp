#include "model/next_token.h"

#include <algorithm>
#include <numeric>

#include "attention/head_forward.h"

namespace attn {

int64_t most_probable(const RowVector& logits) {
    Eigen::Index best = 0;
    for (Eigen::Index i = 1; i < logits.size(); ++i)
        if (logits(i) > logits(best)) best = i;
    return static_cast<int64_t>(best);
}

std::vector<TokenProbability> top_next_tokens(const RowVector& logits, int k) {
    RowVector probs = logits;
    softmax_row(probs.data(), probs.size(), probs.size(), 1.0f, 0);  // as torch.softmax(logits, dim=-1)
    std::vector<int64_t> ids(static_cast<size_t>(probs.size()));
    std::iota(ids.begin(), ids.end(), 0);
    const auto n = static_cast<std::ptrdiff_t>(std::clamp<int64_t>(k, 0, probs.size()));
    std::partial_sort(ids.begin(), ids.begin() + n, ids.end(), [&](int64_t a, int64_t b) {
        return probs(a) > probs(b) || (probs(a) == probs(b) && a < b);
    });
    std::vector<TokenProbability> top;
    for (std::ptrdiff_t i = 0; i < n; ++i) top.push_back({ids[static_cast<size_t>(i)], probs(ids[static_cast<size_t>(i)])});
    return top;
}

}  // namespace attn
