#include "numerics/mersenne_twister.h"

#include <algorithm>

#include "numerics/vector_clones.h"

namespace attn {

namespace {

constexpr int kN = MersenneTwister::kStateSize;
constexpr int kM = 397;

// One step of the recurrence: the upper bit of `a`, the lower 31 of `b`, into `far`.
inline uint32_t step(uint32_t a, uint32_t b, uint32_t far) {
    const uint32_t y = (a & 0x80000000u) | (b & 0x7fffffffu);
    return far ^ (y >> 1) ^ ((y & 1u) * 0x9908b0dfu);
}

// The twist and the tempering are plain loops the compiler vectorises; compiled for
// x86-64 they use 4-lane SSE2, so a copy for AVX2 (8 lanes) is made too: the portable
// build draws as fast as one for this machine. The words are the same either way.
ATTN_VECTOR_BODY void twist_words_body(uint32_t* s) {
    // Split where the index i + 397 wraps, so that each loop reads words at a fixed
    // distance and vectorises: the first reads words not yet replaced, the second
    // ones this twist already replaced, as the sequential algorithm does.
    for (int i = 0; i < kN - kM; ++i) s[i] = step(s[i], s[i + 1], s[i + kM]);
    for (int i = kN - kM; i < kN - 1; ++i) s[i] = step(s[i], s[i + 1], s[i + kM - kN]);
    s[kN - 1] = step(s[kN - 1], s[0], s[kM - 1]);
}
ATTN_VECTOR_COPIES2(void, twist_words, (uint32_t* s), (s))

ATTN_VECTOR_BODY void temper_words_body(const uint32_t* from, size_t n, uint32_t* out) {
    for (size_t i = 0; i < n; ++i) out[i] = MersenneTwister::temper(from[i]);
}
ATTN_VECTOR_COPIES2(void, temper_words, (const uint32_t* from, size_t n, uint32_t* out), (from, n, out))

}  // namespace

MersenneTwister::MersenneTwister(uint32_t seed) {
    state_[0] = seed;
    for (int i = 1; i < kN; ++i)
        state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + static_cast<uint32_t>(i);
}

void MersenneTwister::twist() {
    twist_words(state_);
    index_ = 0;
}

void MersenneTwister::fill(uint32_t* out, size_t n) {
    while (n > 0) {
        if (index_ == kN) twist();
        const size_t take = std::min(n, static_cast<size_t>(kN - index_));
        temper_words(state_ + index_, take, out);
        index_ += static_cast<int>(take);
        out += take;
        n -= take;
    }
}

void MersenneTwister::discard(size_t n) {
    while (n > 0) {
        if (index_ == kN) twist();
        const size_t take = std::min(n, static_cast<size_t>(kN - index_));
        index_ += static_cast<int>(take);
        n -= take;
    }
}

}  // namespace attn
