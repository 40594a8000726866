// The generator and initialisers against values printed by the seed documents.
#include <catch2/catch.hpp>

#include "torch_random.h"

using attn::Matrix;

TEST_CASE("torch.rand(3, 2) after manual_seed(123) is 002's W_query", "[rng]") {
    attn::TorchGenerator g(123);
    Matrix expected(3, 2);
    expected << 0.2961f, 0.5166f, 0.2517f, 0.6886f, 0.0740f, 0.8665f;
    CHECK(attn::torch_rand(g, 3, 2).isApprox(expected, 1e-3f));
}
