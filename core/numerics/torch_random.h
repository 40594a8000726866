#pragma once
// PyTorch's CPU random generator and the initialisers the seed documents use.
// Each function draws from the generator in exactly the order torch 1.13-2.x does,
// so that `TorchGenerator g(123); torch_rand(g, 3, 2)` equals
// `torch.manual_seed(123); torch.rand(3, 2)`.
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "numerics/mersenne_twister.h"
#include "numerics/tensor.h"

namespace attn {

// torch.manual_seed(s): a 32-bit Mersenne Twister seeded with s (init_genrand).
class TorchGenerator {
public:
    explicit TorchGenerator(uint64_t seed) : engine_(static_cast<uint32_t>(seed)) {}

    uint32_t random() { return engine_(); }
    // Two 32-bit draws, the first one the high word (at::mt19937 random64).
    uint64_t random64() {
        const uint64_t hi = engine_();
        const uint64_t lo = engine_();
        return (hi << 32) | lo;
    }
    // The next n 32-bit draws at once, and n draws skipped: as n calls of random().
    void fill(uint32_t* out, size_t n) { engine_.fill(out, n); }
    void discard(size_t n) { engine_.discard(n); }

    // at::uniform_real_distribution<float>: 24 random bits of one 32-bit draw.
    static float uniform_float(uint32_t bits, float from, float to) {
        const float x = static_cast<float>(bits & ((1u << 24) - 1)) * (1.0f / (1u << 24));
        return x * (to - from) + from;
    }
    // at::uniform_real_distribution<double>: 53 random bits of one 64-bit draw.
    static double uniform_double(uint64_t bits, double from, double to) {
        const double x = static_cast<double>(bits & ((uint64_t{1} << 53) - 1)) *
                         (1.0 / static_cast<double>(uint64_t{1} << 53));
        return x * (to - from) + from;
    }
    // at::exponential_distribution<double> on CPU: -1/lambda * log(1 - u), u the
    // uniform_double of one 64-bit draw (log, not log1p: checked against torch 1.13 on a
    // million draws, where the two differ in 7% of the last bits).
    static double exponential_double(uint64_t bits, double lambda) {
        return -1.0 / lambda * std::log(1.0 - uniform_double(bits, 0.0, 1.0));
    }
    float uniform_float(float from, float to) { return uniform_float(random(), from, to); }
    double uniform_double(double from, double to) { return uniform_double(random64(), from, to); }
    // at::normal_distribution<double> (the path normal_ takes for fewer than 16 elements).
    double normal_double(double mean, double stdv);

private:
    MersenneTwister engine_;
    std::optional<double> cached_normal_;  // Box-Muller's second value, as torch keeps it
};

// torch.rand(rows, cols)
Matrix torch_rand(TorchGenerator& gen, int rows, int cols);

// torch.empty(n).exponential_(1) in float: one 64-bit draw an element, in element order,
// exponential_double narrowed to float (torch computes it in double for every dtype).
void torch_exponential(TorchGenerator& gen, float* out, size_t n);

// torch.multinomial(weights, 1) on one row of non-negative weights (probabilities, or
// any scale): torch 1.13's CPU path for a single sample, the exponential trick:
// q = empty_like(weights).exponential_(1), then argmax(weights / q) in float. It draws
// one exponential per element whatever the weights, zeros included. Throws UserError
// as torch refuses: a weight that is negative, infinite or NaN, or all of them 0.
int64_t torch_multinomial(TorchGenerator& gen, const RowVector& weights);

// torch.empty(rows, cols).normal_(): the initialiser of nn.Embedding.
Matrix torch_normal(TorchGenerator& gen, int64_t rows, int cols);

// The same draws as torch_normal, but only the listed rows are returned (in the
// order listed): the generator still advances past the whole table, so what is
// drawn next (a positional table, say) is what torch would draw.
Matrix torch_normal_rows(TorchGenerator& gen, int64_t rows, int cols,
                         const std::vector<int64_t>& wanted);

// nn.Linear(in, out, bias): kaiming-uniform weight in +-1/sqrt(in), then the bias.
// `weight` is stored in the `x @ W` orientation (in x out), i.e. torch's weight.T.
struct Linear {
    Matrix weight;                   // in x out
    std::optional<RowVector> bias;   // 1 x out
    Matrix forward(const Matrix& x) const;  // x @ weight + bias
};
Linear torch_linear(TorchGenerator& gen, int in, int out, bool bias);

// nn.Dropout(p)'s draws for one rows x cols tensor in training mode, one bit an element
// (1: kept): 32 times smaller than the factors, which at 8192 tokens and 12 heads would
// hold 3 GB. p = 0 and p = 1 draw nothing (torch short-cuts both).
struct DropoutDraws {
    Eigen::Index rows = 0, cols = 0;
    float scale = 1.0f;             // what a kept weight is multiplied by: 1/(1-p), 0 for p = 1
    std::vector<uint64_t> kept;     // bit k of word k / 64: element k in row-major order
    bool is_kept(Eigen::Index i, Eigen::Index j) const {
        const auto k = static_cast<size_t>(i * cols + j);
        return (kept[k / 64] >> (k % 64)) & 1u;
    }
    // The factor of element (i, j): scale or 0.
    float factor(Eigen::Index i, Eigen::Index j) const { return is_kept(i, j) ? scale : 0.0f; }
};
DropoutDraws torch_dropout_draws(TorchGenerator& gen, int rows, int cols, double p);

// The same as the factor it multiplies by: 0 or 1/(1-p).
Matrix torch_dropout_mask(TorchGenerator& gen, int rows, int cols, double p);
Matrix dropout_factors(const DropoutDraws& draws);

}  // namespace attn
