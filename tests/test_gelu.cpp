// GELU (numerics/gelu_rows.h): the same bits as the Eigen expression the engine used
// before (its vectorised tanh, SSE2 in the portable build), in whatever copy the CPU runs,
// and within rounding of the formula in double.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "numerics/gelu_rows.h"
#include "numerics/tensor.h"

namespace {

using Floats = Eigen::Array<float, Eigen::Dynamic, 1>;

Floats eigen_gelu(const Floats& v) {
    const float c = std::sqrt(2.0f / static_cast<float>(M_PI));
    return 0.5f * v * (1.0f + (c * (v + 0.044715f * v.cube())).tanh());
}

bool same_bits(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST_CASE("gelu_tanh: Eigen's GELU bit for bit, and the formula's value", "[gelu]") {
    // -12 .. 12 in steps that are not powers of two, the tiny-input branch (|x| < 0.0004
    // after the scaling), signed zeros, infinities and NaN; 100003 values: a tail after
    // every vector width.
    std::vector<float> values;
    for (int i = 0; i < 100003; ++i) values.push_back(-12.0f + 24.0f * static_cast<float>(i) / 100002.0f);
    for (const float v : {0.0f, -0.0f, 1e-6f, -3e-4f, 4e-4f, 1e-30f, 88.0f, -88.0f, 1e6f, -1e6f,
                          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()})
        values.push_back(v);
    const Floats in = Eigen::Map<const Floats>(values.data(), static_cast<Eigen::Index>(values.size()));
    const Floats want = eigen_gelu(in);
    Floats got(in.size());
    attn::gelu_tanh(in.data(), got.data(), in.size());
    int differ = 0;
    for (Eigen::Index j = 0; j < in.size(); ++j)
        if (!same_bits(got[j], want[j])) {
            if (differ++ < 5) UNSCOPED_INFO("x = " << in[j] << ": " << got[j] << ", Eigen " << want[j]);
        }
    CHECK(differ == 0);
    // Starting anywhere (unaligned) gives the same values.
    Floats shifted(in.size() - 3);
    attn::gelu_tanh(in.data() + 3, shifted.data(), shifted.size());
    int moved = 0;
    for (Eigen::Index j = 0; j < shifted.size(); ++j) moved += same_bits(shifted[j], got[j + 3]) ? 0 : 1;
    CHECK(moved == 0);
    // The formula with double's tanh: Eigen's approximation is within a few float ulps.
    for (Eigen::Index j = 0; j < 100003; ++j) {
        const double x = in[j];
        const double exact = 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
        INFO("x = " << x);
        REQUIRE(std::abs(got[j] - exact) <= 2e-6 * std::max(1.0, std::abs(exact)));
    }
}
