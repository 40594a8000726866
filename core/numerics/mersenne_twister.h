#pragma once
// The 32-bit Mersenne Twister of std::mt19937 (and of torch's CPU generator), with a
// bulk fill: a slider change draws millions of numbers (four 768 x 768 nn.Linear
// weights, a 12 x 256 x 256 dropout mask), and one call per number through
// std::mt19937 costs ~3 ns where the twist and tempering over whole blocks, which
// the compiler vectorises, cost a fraction of that.
#include <cstddef>
#include <cstdint>

namespace attn {

class MersenneTwister {
public:
    static constexpr int kStateSize = 624;

    explicit MersenneTwister(uint32_t seed);  // init_genrand, as std::mt19937(seed)

    uint32_t operator()() {
        if (index_ == kStateSize) twist();
        return temper(state_[index_++]);
    }
    // The next n draws, the same as n calls of operator().
    void fill(uint32_t* out, size_t n);
    // Skips the next n draws (untempered words are never looked at).
    void discard(size_t n);

    // A word of the state as the generator draws it.
    static uint32_t temper(uint32_t y) {
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        return y ^ (y >> 18);
    }

private:
    void twist();  // the next 624 untempered words, in place

    uint32_t state_[kStateSize];
    int index_ = kStateSize;
};

}  // namespace attn
