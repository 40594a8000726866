#include "torch_random.h"

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

Matrix torch_rand(TorchGenerator& gen, int rows, int cols) {
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = gen.uniform_float(0.0f, 1.0f);
    return m;
}

namespace {

// normal_fill_16 of torch's AVX2 kernel: Box-Muller on 16 uniforms in place,
// element j pairs with j + 8; theta is computed in float as the vector code does.
void box_muller_16(float* u) {
    const float two_pi = static_cast<float>(2.0 * M_PI);
    for (int j = 0; j < 8; ++j) {
        const float u1 = 1.0f - u[j];  // [0, 1) -> (0, 1] for the log
        const float u2 = u[j + 8];
        const float radius = std::sqrt(-2.0f * std::log(u1));
        const float theta = two_pi * u2;
        u[j] = radius * std::cos(theta);
        u[j + 8] = radius * std::sin(theta);
    }
}

}  // namespace

// torch's normal_fill for n >= 16: draw n uniforms, transform them in blocks of 16,
// then, when n is not a multiple of 16, draw 16 fresh uniforms for the last 16
// elements and transform those. Fewer than 16 elements take the double path.
// Only the blocks that touch a wanted row are transformed; all draws are made.
Matrix torch_normal_rows(TorchGenerator& gen, int64_t rows, int cols,
                         const std::vector<int64_t>& wanted) {
    Matrix out(static_cast<Eigen::Index>(wanted.size()), cols);
    const int64_t n = rows * cols;
    if (n < 16) {
        std::vector<float> all(static_cast<size_t>(n));
        for (auto& v : all) v = static_cast<float>(gen.normal_double(0.0, 1.0));
        for (size_t r = 0; r < wanted.size(); ++r)
            for (int c = 0; c < cols; ++c) out(r, c) = all[static_cast<size_t>(wanted[r] * cols + c)];
        return out;
    }
    // Which 16-blocks hold wanted elements (sorted, unique).
    std::vector<int64_t> blocks;
    for (int64_t r : wanted)
        for (int64_t b = r * cols / 16; b <= (r * cols + cols - 1) / 16; ++b) blocks.push_back(b);
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());

    const int64_t full_blocks = n / 16;
    std::vector<float> kept(blocks.size() * 16);
    size_t next = 0;
    for (int64_t b = 0; b < full_blocks; ++b) {
        const bool keep = next < blocks.size() && blocks[next] == b;
        for (int j = 0; j < 16; ++j) {
            const uint32_t bits = gen.random();
            if (keep) kept[next * 16 + j] = static_cast<float>(bits & ((1u << 24) - 1)) * (1.0f / (1u << 24));
        }
        if (keep) box_muller_16(&kept[next++ * 16]);
    }
    const int64_t tail = n % 16;
    for (int64_t i = 0; i < tail; ++i) gen.random();  // the partial block's draws, never used
    float tail_block[16];
    if (tail != 0) {
        for (float& v : tail_block) v = gen.uniform_float(0.0f, 1.0f);
        box_muller_16(tail_block);
    }

    auto value_at = [&](int64_t i) {
        if (tail != 0 && i >= n - 16) return tail_block[i - (n - 16)];
        const size_t k = static_cast<size_t>(std::lower_bound(blocks.begin(), blocks.end(), i / 16) - blocks.begin());
        return kept[k * 16 + static_cast<size_t>(i % 16)];
    };
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
    Matrix y = x * weight;  // (T x in) @ (in x out) -> T x out
    if (bias) y.rowwise() += *bias;
    return y;
}

Linear torch_linear(TorchGenerator& gen, int in, int out, bool bias) {
    // kaiming_uniform_(a = sqrt(5)) reduces to bound = 1/sqrt(fan_in); computed in
    // double exactly as torch.nn.init does, then narrowed to float by uniform_.
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1.0 + a * a));
    const double weight_bound = std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(in)));
    const auto lo = static_cast<float>(-weight_bound), hi = static_cast<float>(weight_bound);
    Matrix w(out, in);  // torch's (out, in) layout fixes the draw order
    for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = gen.uniform_float(lo, hi);
    Linear layer{w.transpose(), std::nullopt};
    if (bias) {
        const double bound = 1.0 / std::sqrt(static_cast<double>(in));
        RowVector b(out);
        for (int i = 0; i < out; ++i)
            b[i] = gen.uniform_float(static_cast<float>(-bound), static_cast<float>(bound));
        layer.bias = b;
    }
    return layer;
}

Matrix torch_dropout_mask(TorchGenerator& gen, int rows, int cols, double p) {
    if (p == 0.0) return Matrix::Ones(rows, cols);
    if (p == 1.0) return Matrix::Zero(rows, cols);
    // bernoulli_(1 - p) from 53-bit doubles, then div_(1 - p) in float.
    const float scale = 1.0f / static_cast<float>(1.0 - p);
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = gen.uniform_double(0.0, 1.0) < 1.0 - p ? scale : 0.0f;
    return m;
}

}  // namespace attn
