// The generator and initialisers against values printed by the seed documents.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

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
