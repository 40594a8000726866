#include "numerics/torch_random.h"

#include "base/user_error.h"
#include "numerics/box_muller.h"
#include "numerics/gemm.h"

#include <algorithm>
#include <cmath>

namespace attn {

double TorchGenerator::normal_double(double mean, double stdv) {
    if (cached_normal_) {
        const double z = *cached_normal_;
        cached_normal_.reset();
        return z * stdv + mean;
    }
    const double u1 = uniform_double(0.0, 1.0);
    const double u2 = uniform_double(0.0, 1.0);
    const double r = std::sqrt(-2.0 * std::log1p(-u2));
    const double theta = 2.0 * M_PI * u1;
    cached_normal_ = r * std::sin(theta);
    return r * std::cos(theta) * stdv + mean;
}

namespace {

// Draws n words a chunk at a time, handing each chunk to use(first, words, count):
// the generator's bulk fill without a buffer the size of a 50257 x 768 table.
template <class Use>
void draw_chunks(TorchGenerator& gen, size_t n, Use&& use) {
    // Even, so that a random64's two words never straddle chunks: 2048 elements of two
    // words, a multiple of the 64 torch_dropout_draws packs into a word.
    constexpr size_t kChunk = 4096;
    uint32_t words[kChunk];
    for (size_t first = 0; first < n; first += kChunk) {
        const size_t count = std::min(kChunk, n - first);
        gen.fill(words, count);
        use(first, words, count);
    }
}

// n uniform floats in [from, to), one draw each, in draw order.
void fill_uniform(TorchGenerator& gen, float* out, size_t n, float from, float to) {
    draw_chunks(gen, n, [&](size_t first, const uint32_t* words, size_t count) {
        for (size_t k = 0; k < count; ++k) out[first + k] = TorchGenerator::uniform_float(words[k], from, to);
    });
}

bool is_every_row(const std::vector<int64_t>& wanted, int64_t rows) {
    if (static_cast<int64_t>(wanted.size()) != rows) return false;
    for (int64_t r = 0; r < rows; ++r)
        if (wanted[static_cast<size_t>(r)] != r) return false;
    return true;
}

}  // namespace

void torch_exponential(TorchGenerator& gen, float* out, size_t n) {
    // Two words an element, the first the high one (random64); chunks hold whole pairs.
    draw_chunks(gen, 2 * n, [&](size_t first, const uint32_t* words, size_t count) {
        for (size_t k = 0; k + 1 < count; k += 2) {
            const uint64_t bits = (uint64_t{words[k]} << 32) | words[k + 1];
            out[(first + k) / 2] = static_cast<float>(TorchGenerator::exponential_double(bits, 1.0));
        }
    });
}

int64_t torch_multinomial(TorchGenerator& gen, const RowVector& weights) {
    // torch checks before it draws: a refused row leaves the generator where it was.
    const auto n = weights.size();
    if (n == 0 || !(weights.array() >= 0.0f).all() || !weights.array().isFinite().all())
        throw UserError("probability tensor contains either `inf`, `nan` or element < 0");
    if (weights.sum() == 0.0f) throw UserError("invalid multinomial distribution (sum of probabilities <= 0)");
    std::vector<float> q(static_cast<size_t>(n));
    torch_exponential(gen, q.data(), q.size());
    // argmax(weights / q): the first of equals; a NaN (0 / 0, when a draw of u = 0 gives
    // q = -0, one in 2^53) is the largest, as torch's argmax takes it.
    Eigen::Index best = 0;
    float best_ratio = weights(0) / q[0];
    for (Eigen::Index i = 1; i < n && !std::isnan(best_ratio); ++i) {
        const float ratio = weights(i) / q[static_cast<size_t>(i)];
        if (ratio > best_ratio || std::isnan(ratio)) {
            best = i;
            best_ratio = ratio;
        }
    }
    return static_cast<int64_t>(best);
}

Matrix torch_rand(TorchGenerator& gen, int rows, int cols) {
    Matrix m(rows, cols);
    fill_uniform(gen, m.data(), static_cast<size_t>(m.size()), 0.0f, 1.0f);
    return m;
}

// torch's normal_fill for n >= 16: draw n uniforms, transform them in blocks of 16,
// then, when n is not a multiple of 16, draw 16 fresh uniforms for the last 16
// elements and transform those. Fewer than 16 elements take the double path.
// Only the blocks that touch a wanted row are kept and transformed; all draws are made.
Matrix torch_normal_rows(TorchGenerator& gen, int64_t rows, int cols,
                         const std::vector<int64_t>& wanted) {
    const int64_t n = rows * cols;
    if (n < 16) {
        std::vector<float> all(static_cast<size_t>(n));
        for (auto& v : all) v = static_cast<float>(gen.normal_double(0.0, 1.0));
        Matrix out(static_cast<Eigen::Index>(wanted.size()), cols);
        for (size_t r = 0; r < wanted.size(); ++r)
            for (int c = 0; c < cols; ++c) out(static_cast<Eigen::Index>(r), c) = all[static_cast<size_t>(wanted[r] * cols + c)];
        return out;
    }
    const int64_t full_blocks = n / 16;
    const int64_t tail = n % 16;
    const auto draw_tail = [&](float* last16) {  // the recomputed last 16 elements
        gen.discard(static_cast<size_t>(tail));  // the partial block's draws, never used
        if (tail == 0) return;
        float block[16];
        fill_uniform(gen, block, 16, 0.0f, 1.0f);
        box_muller_blocks(block, 1);
        std::copy(block, block + 16, last16);
    };

    if (is_every_row(wanted, rows)) {  // the whole table: transform in place
        Matrix out(rows, cols);
        float* d = out.data();
        fill_uniform(gen, d, static_cast<size_t>(full_blocks * 16), 0.0f, 1.0f);
        box_muller_blocks(d, full_blocks);
        float last16[16];
        draw_tail(last16);
        if (tail != 0) std::copy(last16, last16 + 16, d + n - 16);
        return out;
    }

    // Which 16-blocks hold wanted elements (sorted, unique), and where each is kept.
    std::vector<int64_t> blocks;
    for (int64_t r : wanted)
        for (int64_t b = r * cols / 16; b <= (r * cols + cols - 1) / 16; ++b) blocks.push_back(b);
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
    std::vector<float> kept(blocks.size() * 16);
    size_t next = 0;
    int64_t drawn = 0;  // blocks the generator has gone past
    for (; next < blocks.size() && blocks[next] < full_blocks; ++next) {
        gen.discard(static_cast<size_t>(blocks[next] - drawn) * 16);
        fill_uniform(gen, kept.data() + next * 16, 16, 0.0f, 1.0f);
        drawn = blocks[next] + 1;
    }
    gen.discard(static_cast<size_t>(full_blocks - drawn) * 16);
    box_muller_blocks(kept.data(), static_cast<int64_t>(next));
    float last16[16];
    draw_tail(last16);

    const auto value_at = [&](int64_t i) {
        if (tail != 0 && i >= n - 16) return last16[i - (n - 16)];
        const auto k = static_cast<size_t>(std::lower_bound(blocks.begin(), blocks.end(), i / 16) - blocks.begin());
        return kept[k * 16 + static_cast<size_t>(i % 16)];
    };
    Matrix out(static_cast<Eigen::Index>(wanted.size()), cols);
    for (size_t r = 0; r < wanted.size(); ++r)
        for (int c = 0; c < cols; ++c) out(static_cast<Eigen::Index>(r), c) = value_at(wanted[r] * cols + c);
    return out;
}

Matrix torch_normal(TorchGenerator& gen, int64_t rows, int cols) {
    std::vector<int64_t> all(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) all[static_cast<size_t>(r)] = r;
    return torch_normal_rows(gen, rows, cols, all);
}

Matrix Linear::forward(const Matrix& x) const {
    return linear_product(x, weight, Transpose::No, bias);  // (T x in) @ (in x out) -> T x out
}

Linear torch_linear(TorchGenerator& gen, int in, int out, bool bias) {
    // kaiming_uniform_(a = sqrt(5)) reduces to bound = 1/sqrt(fan_in); computed in
    // double exactly as torch.nn.init does, then narrowed to float by uniform_.
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1.0 + a * a));
    const double weight_bound = std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(in)));
    const auto lo = static_cast<float>(-weight_bound), hi = static_cast<float>(weight_bound);
    // torch's (out, in) layout fixes the draw order: draw k is weight[k / in][k % in],
    // stored at w(k % in, k / in). Transposed in tiles of 32 rows of torch's weight so
    // that both the words read and the floats written stay in cache.
    Matrix w(in, out);
    constexpr int kTile = 32;
    std::vector<uint32_t> words(static_cast<size_t>(kTile) * static_cast<size_t>(in));
    for (int r0 = 0; r0 < out; r0 += kTile) {
        const int rows = std::min(kTile, out - r0);
        gen.fill(words.data(), static_cast<size_t>(rows) * static_cast<size_t>(in));
        for (int c = 0; c < in; ++c)
            for (int r = 0; r < rows; ++r)
                w(c, r0 + r) = TorchGenerator::uniform_float(words[static_cast<size_t>(r * in + c)], lo, hi);
    }
    Linear layer{std::move(w), std::nullopt};
    if (bias) {
        const double bound = 1.0 / std::sqrt(static_cast<double>(in));
        RowVector b(out);
        fill_uniform(gen, b.data(), static_cast<size_t>(out), static_cast<float>(-bound), static_cast<float>(bound));
        layer.bias = b;
    }
    return layer;
}

DropoutDraws torch_dropout_draws(TorchGenerator& gen, int rows, int cols, double p) {
    DropoutDraws d;
    d.rows = rows;
    d.cols = cols;
    const size_t n = static_cast<size_t>(rows) * static_cast<size_t>(cols);
    // p = 0 keeps every element as it is, p = 1 none: no draws.
    d.scale = p == 1.0 ? 0.0f : p == 0.0 ? 1.0f : 1.0f / static_cast<float>(1.0 - p);
    d.kept.assign((n + 63) / 64, p == 1.0 ? 0u : ~uint64_t{0});
    if (p == 0.0 || p == 1.0) return d;
    // bernoulli_(1 - p): an element is kept when the double m / 2^53 drawn for it (m the
    // low 53 bits of a random64) is below 1 - p, that is when the integer m is below
    // ceil((1 - p) * 2^53): exact, as both scalings by 2^53 are. Then div_(1 - p) in
    // float (the scale). Compared as integers, 64 elements to a word of bits, the loop
    // vectorises.
    const uint64_t below = static_cast<uint64_t>(std::ceil((1.0 - p) * 9007199254740992.0));
    std::fill(d.kept.begin(), d.kept.end(), 0u);
    // Two words an element, the first the high one (random64); chunks start at a
    // multiple of 64 elements.
    draw_chunks(gen, 2 * n, [&](size_t first, const uint32_t* words, size_t count) {
        const size_t elements = count / 2, first_element = first / 2;
        for (size_t e = 0; e < elements; e += 64) {
            uint64_t bits = 0;
            const size_t group = std::min<size_t>(64, elements - e);
            for (size_t k = 0; k < group; ++k) {
                const uint32_t* w = words + 2 * (e + k);
                const uint64_t m = (uint64_t{w[0] & 0x1fffffu} << 32) | w[1];
                bits |= uint64_t{m < below} << k;
            }
            d.kept[(first_element + e) / 64] = bits;
        }
    });
    return d;
}

Matrix dropout_factors(const DropoutDraws& d) {
    Matrix m(d.rows, d.cols);
    for (Eigen::Index i = 0; i < d.rows; ++i)
        for (Eigen::Index j = 0; j < d.cols; ++j) m(i, j) = d.factor(i, j);
    return m;
}

Matrix torch_dropout_mask(TorchGenerator& gen, int rows, int cols, double p) {
    return dropout_factors(torch_dropout_draws(gen, rows, cols, p));
}

}  // namespace attn
