// The generator and initialisers against values printed by the seed documents.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "numerics/box_muller.h"
#include "numerics/torch_random.h"

using attn::Matrix;

TEST_CASE("torch.rand(3, 2) after manual_seed(123) is 002's W_query", "[rng]") {
    attn::TorchGenerator g(123);
    Matrix expected(3, 2);
    expected << 0.2961f, 0.5166f, 0.2517f, 0.6886f, 0.0740f, 0.8665f;
    CHECK(attn::torch_rand(g, 3, 2).isApprox(expected, 1e-3f));
}

TEST_CASE("the bulk Mersenne Twister draws what std::mt19937 draws", "[rng]") {
    // Fills, single draws and skips of sizes around the 624-word state, interleaved.
    for (const uint32_t seed : {0u, 123u, 4294967295u}) {
        std::mt19937 reference(seed);
        attn::MersenneTwister mt(seed);
        std::vector<uint32_t> got;
        for (const size_t n : {size_t{1}, size_t{623}, size_t{624}, size_t{625}, size_t{5000}, size_t{2}}) {
            got.assign(n, 0);
            mt.fill(got.data(), n);
            for (size_t i = 0; i < n; ++i) REQUIRE(got[i] == reference());
            REQUIRE(mt() == reference());
            mt.discard(n);
            reference.discard(n);
            REQUIRE(mt() == reference());
        }
    }
}

TEST_CASE("bulk-drawn initialisers equal one draw at a time", "[rng]") {
    // torch_linear, torch_rand and torch_dropout_mask draw in bulk; the reference here
    // is the scalar definition of each draw.
    attn::TorchGenerator bulk(7), scalar(7);
    const attn::Linear layer = attn::torch_linear(bulk, 37, 45, true);
    const float bound = static_cast<float>(std::sqrt(3.0) * std::sqrt(2.0 / 6.0) / std::sqrt(37.0));
    for (int o = 0; o < 45; ++o)
        for (int i = 0; i < 37; ++i) REQUIRE(layer.weight(i, o) == scalar.uniform_float(-bound, bound));
    const auto bias_bound = static_cast<float>(1.0 / std::sqrt(37.0));
    for (int o = 0; o < 45; ++o) REQUIRE((*layer.bias)(o) == scalar.uniform_float(-bias_bound, bias_bound));

    const Matrix mask = attn::torch_dropout_mask(bulk, 70, 90, 0.3);
    const float scale = 1.0f / 0.7f;
    for (Eigen::Index k = 0; k < mask.size(); ++k)
        REQUIRE(mask.data()[k] == (scalar.uniform_double(0.0, 1.0) < 0.7 ? scale : 0.0f));

    const Matrix r = attn::torch_rand(bulk, 50, 99);
    for (Eigen::Index k = 0; k < r.size(); ++k) REQUIRE(r.data()[k] == scalar.uniform_float(0.0f, 1.0f));
    CHECK(bulk.random() == scalar.random());
}

TEST_CASE("torch.randn's Box-Muller transform is within 3 ulp of the exact one", "[rng]") {
    // Every block of 16 pairs u[j] with u[j + 8]: radius sqrt(-2 log(1 - u[j])) and angle
    // 2 pi u[j + 8], with 1 - u and the angle in float (as torch computes them), then the
    // exact log, cos and sin of those floats. The uniforms sweep [0, 1) with its ends and every octant's borders.
    std::vector<float> u;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> any(0.0f, 1.0f);
    const std::vector<float> edges = {0.0f, 0x1p-24f, 0.125f, 0.25f, 0.375f, 0.5f, 0.625f, 0.75f, 0.875f,
                                      1.0f - 0x1p-24f, std::nextafter(0.25f, 0.0f), std::nextafter(0.5f, 1.0f)};
    for (const float e : edges)
        for (const float a : edges) {
            u.insert(u.end(), 8, e);  // radii
            u.insert(u.end(), 8, a);  // angles
        }
    for (int k = 0; k < 100000 * 16; ++k) u.push_back(any(rng));
    std::vector<float> z = u;
    attn::box_muller_blocks(z.data(), static_cast<int64_t>(z.size() / 16));
    const auto two_pi = static_cast<float>(2.0 * M_PI);
    double worst = 0.0;
    for (size_t b = 0; b < u.size(); b += 16)
        for (size_t j = 0; j < 8; ++j) {
            const float one_minus_u = 1.0f - u[b + j];
            const double radius = std::sqrt(-2.0 * std::log(static_cast<double>(one_minus_u)));
            const double theta = two_pi * u[b + j + 8];
            // An ulp of the pair's scale: cos and sin near 0 are judged against the radius.
            const double ulp = std::max(radius, 1e-30) * 0x1p-23;
            const double err = std::max(std::abs(z[b + j] - radius * std::cos(theta)),
                                        std::abs(z[b + j + 8] - radius * std::sin(theta))) / ulp;
            worst = std::max(worst, err);
            if (err > 3.0)
                FAIL("u = " << u[b + j] << ", " << u[b + j + 8] << ": got " << z[b + j] << ", " << z[b + j + 8]
                            << ", exact " << radius * std::cos(theta) << ", " << radius * std::sin(theta));
        }
    INFO("worst error " << worst << " ulp of the radius");
    CHECK(worst > 0.0);  // the comparison ran
}
