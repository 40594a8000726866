#pragma once
// Chapter 2's GPTDatasetV1 sampling: input/target windows over token ids, the target
// being the input shifted by one token.
#include <cstdint>
#include <vector>

namespace attn {

struct InputTargetPair {
    std::vector<int64_t> input;   // ids[i, i + max_length)
    std::vector<int64_t> target;  // ids[i + 1, i + max_length + 1)
};

// One pair for each i in range(0, len(ids) - max_length, stride), as the book's loop:
// none when ids.size() <= max_length. Throws TokenizeError if max_length < 1 or stride < 1.
std::vector<InputTargetPair> input_target_pairs(const std::vector<int64_t>& ids, int64_t max_length, int64_t stride);

}  // namespace attn
