#pragma once
// How generation picks the next token: chapter 5's generate (top-k, then temperature,
// then torch.multinomial on the softmax; temperature 0 takes the argmax, as
// generate_text_simple does), with the random stream of torch.manual_seed(seed) called
// once before generate. A TokenSampler is that stream: each sampled token draws
// vocab_size numbers from it, so a generation continued later (the app appends a token
// a run) must carry the sampler on, not make a new one.
#include <cstdint>
#include <optional>

#include "numerics/tensor.h"
#include "numerics/torch_random.h"

namespace attn {

struct Sampling {
    double temperature = 0.0;       // 0: the argmax, no draws
    std::optional<int64_t> top_k;   // only the k largest logits may be chosen
    uint64_t seed = 123;            // torch.manual_seed before generate (the book's 123)
    bool sampled() const { return temperature > 0.0; }
};
bool operator==(const Sampling& a, const Sampling& b);
inline bool operator!=(const Sampling& a, const Sampling& b) { return !(a == b); }

class TokenSampler {
public:
    explicit TokenSampler(const Sampling& how = {}) : how_(how), gen_(how.seed) {}
    // generate's step on one row of logits (vocab_size wide). Throws ConfigError when
    // top_k is larger than the row (torch.topk's "selected index k out of range").
    int64_t next(const RowVector& logits);
    const Sampling& how() const { return how_; }
    int64_t sampled_tokens() const { return sampled_tokens_; }  // tokens drawn so far

private:
    Sampling how_;
    TorchGenerator gen_;
    int64_t sampled_tokens_ = 0;
};

// What generate draws a token from when it samples: softmax(top_k(logits) / temperature), as
// TokenSampler::next computes it (a token the top-k filter leaves out: 0). Needs how.sampled().
RowVector draw_distribution(const RowVector& logits, const Sampling& how);

// generate's top-k filter: every logit below the k-th largest becomes -inf (those equal
// to it stay, as torch.where(logits < min_val, -inf, logits) keeps them).
void keep_top_k(RowVector& logits, int64_t k);

}  // namespace attn
