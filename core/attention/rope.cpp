#include "attention/rope.h"

#include <cmath>
#include <string>
#include <vector>

#include "attention/attention.h"

namespace attn {

namespace {

// inv_freq[j] = 1 / base^(2j / hd), each step in float as torch takes it.
std::vector<float> inverse_frequencies(Eigen::Index head_dim, double base) {
    std::vector<float> inv_freq(static_cast<size_t>(head_dim / 2));
    for (size_t j = 0; j < inv_freq.size(); ++j) {
        const float exponent = static_cast<float>(2 * j) / static_cast<float>(head_dim);
        inv_freq[j] = 1.0f / std::pow(static_cast<float>(base), exponent);
    }
    return inv_freq;
}

// transformers' _compute_llama3_parameters, in float as its tensors are.
void scale_llama3(std::vector<float>& inv_freq, const Llama3RopeScaling& s) {
    const float factor = static_cast<float>(s.factor), low = static_cast<float>(s.low_freq_factor),
                high = static_cast<float>(s.high_freq_factor), old_context = static_cast<float>(s.original_context);
    const float low_freq_wavelen = old_context / low, high_freq_wavelen = old_context / high;
    for (float& f : inv_freq) {
        const float wavelen = static_cast<float>(2 * M_PI) / f;
        const float llama = wavelen > low_freq_wavelen ? f / factor : f;  // the long ones slowed
        const bool medium = !(wavelen < high_freq_wavelen) && !(wavelen > low_freq_wavelen);
        if (!medium) {
            f = llama;
            continue;
        }
        const float smooth = (old_context / wavelen - low) / (high - low);
        f = (1 - smooth) * llama / factor + smooth * llama;
    }
}

RopeTables tables_of(Eigen::Index T, Eigen::Index head_dim, const std::vector<float>& inv_freq) {
    const Eigen::Index half = head_dim / 2;
    RopeTables t{Matrix(T, half), Matrix(T, head_dim), Matrix(T, head_dim)};
    for (Eigen::Index j = 0; j < half; ++j)
        for (Eigen::Index p = 0; p < T; ++p) {
            const float angle = static_cast<float>(p) * inv_freq[static_cast<size_t>(j)];  // positions.float() * inv_freq
            t.angles(p, j) = angle;
            t.cos(p, j) = t.cos(p, j + half) = static_cast<float>(std::cos(static_cast<double>(angle)));
            t.sin(p, j) = t.sin(p, j + half) = static_cast<float>(std::sin(static_cast<double>(angle)));
        }
    return t;
}

void check_even(Eigen::Index head_dim) {
    if (head_dim % 2 != 0)
        throw ConfigError("RoPE rotates pairs of features: the head dimension (d_out / heads = " +
                          std::to_string(head_dim) + ") must be even");
}

}  // namespace

RopeTables rope_tables(Eigen::Index T, Eigen::Index head_dim, int base) {
    return rope_tables(T, head_dim, static_cast<double>(base), std::nullopt);
}

RopeTables rope_tables(Eigen::Index T, Eigen::Index head_dim, double base, const std::optional<Llama3RopeScaling>& scaling) {
    check_even(head_dim);
    std::vector<float> inv_freq = inverse_frequencies(head_dim, base);
    if (scaling) scale_llama3(inv_freq, *scaling);
    return tables_of(T, head_dim, inv_freq);
}

Matrix apply_rope_to_heads(const Matrix& all, int n, int head_dim, const RopeTables& tables) {
    Matrix out(all.rows(), all.cols());
    for (int i = 0; i < n; ++i)
        out.middleCols(i * head_dim, head_dim) = apply_rope(all.middleCols(i * head_dim, head_dim), tables);
    return out;
}

Matrix apply_rope(const ConstMatrixView& x, const RopeTables& t) {
    const Eigen::Index half = x.cols() / 2;
    Matrix rotated(x.rows(), x.cols());  // cat((-x2, x1), dim=-1)
    rotated.leftCols(half) = -x.rightCols(half);
    rotated.rightCols(half) = x.leftCols(half);
    // (x * cos) + (rotated * sin): T x hd, elementwise
    return (x.array() * t.cos.topRows(x.rows()).array() + rotated.array() * t.sin.topRows(x.rows()).array()).matrix();
}

}  // namespace attn
