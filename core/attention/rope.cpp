#include "attention/rope.h"

#include <cmath>
#include <string>

#include "attention/attention.h"

namespace attn {

RopeTables rope_tables(Eigen::Index T, Eigen::Index head_dim, int base) {
    if (head_dim % 2 != 0)
        throw ConfigError("RoPE rotates pairs of features: the head dimension (d_out / heads = " +
                          std::to_string(head_dim) + ") must be even");
    const Eigen::Index half = head_dim / 2;
    RopeTables t{Matrix(T, half), Matrix(T, head_dim), Matrix(T, head_dim)};
    for (Eigen::Index j = 0; j < half; ++j) {
        // torch: 1.0 / (theta_base ** (arange(0, hd, 2).float() / hd)), each step a float
        const float exponent = static_cast<float>(2 * j) / static_cast<float>(head_dim);
        const float inv_freq = 1.0f / std::pow(static_cast<float>(base), exponent);
        for (Eigen::Index p = 0; p < T; ++p) {
            const float angle = static_cast<float>(p) * inv_freq;  // positions.float() * inv_freq
            t.angles(p, j) = angle;
            t.cos(p, j) = t.cos(p, j + half) = static_cast<float>(std::cos(static_cast<double>(angle)));
            t.sin(p, j) = t.sin(p, j + half) = static_cast<float>(std::sin(static_cast<double>(angle)));
        }
    }
    return t;
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
