#include "text/input_target_pairs.h"

#include <string>

#include "text/tokenizer.h"

namespace attn {

std::vector<InputTargetPair> input_target_pairs(const std::vector<int64_t>& ids, int64_t max_length, int64_t stride) {
    if (max_length < 1)
        throw TokenizeError("max_length must be at least 1 (got " + std::to_string(max_length) + ")");
    if (stride < 1) throw TokenizeError("stride must be at least 1 (got " + std::to_string(stride) + ")");
    std::vector<InputTargetPair> pairs;
    const auto n = static_cast<int64_t>(ids.size());
    for (int64_t i = 0; i < n - max_length; i += stride) {
        pairs.push_back({std::vector<int64_t>(ids.begin() + i, ids.begin() + i + max_length),
                         std::vector<int64_t>(ids.begin() + i + 1, ids.begin() + i + max_length + 1)});
    }
    return pairs;
}

}  // namespace attn
