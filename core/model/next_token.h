#pragma once
// What the model predicts after a position: softmax over its logits (torch.softmax in
// float), the k most probable tokens, most probable first.
#include <cstdint>
#include <vector>

#include "numerics/tensor.h"

namespace attn {

struct TokenProbability {
    int64_t id = 0;
    float prob = 0.0f;
    // When generate samples: the chance it draws this token (sampling.h's draw_distribution,
    // after temperature and top-k); -1 when it takes the argmax.
    float drawn = -1.0f;
};

// The greedy choice, as torch.argmax: the id of the largest logit, the first of equals.
int64_t most_probable(const RowVector& logits);

// The k (at most the vocabulary's size) most probable next tokens for one row of logits;
// equal probabilities in id order.
std::vector<TokenProbability> top_next_tokens(const RowVector& logits, int k);

}  // namespace attn
