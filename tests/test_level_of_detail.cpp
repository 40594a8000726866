// A heatmap larger than a texture may be is drawn from block means (app/state/level_of_detail.h).
#include <catch2/catch.hpp>

#include <cmath>

#include "numerics/block_means.h"
#include "state/level_of_detail.h"

namespace {

attn::Matrix counting(int rows, int cols) {  // 1, 2, 3, ... row by row
    attn::Matrix m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) m(r, c) = static_cast<float>(r * cols + c + 1);
    return m;
}

}  // namespace

TEST_CASE("a heatmap texture: the block size that fits the GL and screen limit") {
    CHECK(attn::block_factor(8192, 8192, 2048) == 4);
    CHECK(attn::block_factor(8192, 64, 2048) == 4);  // the longer side decides, so cells stay square
    CHECK(attn::block_factor(2048, 2048, 2048) == 1);
    CHECK(attn::block_factor(2049, 10, 2048) == 2);
    CHECK(attn::block_factor(6, 6, 0) == 6);  // a nonsense limit still gives one texel
}

TEST_CASE("a matrix within the limit is uploaded as it is, without a copy") {
    const attn::Matrix m = counting(3, 5);
    const app::TexelGrid g = app::texels_for(m, nullptr, 2048);
    CHECK(g.factor == 1);
    CHECK(g.rows == 3);
    CHECK(g.cols == 5);
    CHECK(g.texels.empty());
}

TEST_CASE("a larger matrix: each texel the mean of its block, ragged edges included") {
    // 5 x 5 cells into at most 2 texels a side: blocks of 3, the last row and column of 2.
    const attn::Matrix m = counting(5, 5);
    const app::TexelGrid g = app::texels_for(m, nullptr, 2);
    REQUIRE(g.factor == 3);
    REQUIRE(g.rows == 2);
    REQUIRE(g.cols == 2);
    const auto mean = [&](int r0, int r1, int c0, int c1) {
        double s = 0;
        for (int r = r0; r < r1; ++r)
            for (int c = c0; c < c1; ++c) s += m(r, c);
        return static_cast<float>(s / ((r1 - r0) * (c1 - c0)));
    };
    CHECK(g.texels[0] == mean(0, 3, 0, 3));  // (1+2+3+6+7+8+11+12+13)/9 = 7
    CHECK(g.texels[0] == 7.0f);
    CHECK(g.texels[1] == mean(0, 3, 3, 5));
    CHECK(g.texels[2] == mean(3, 5, 0, 3));
    CHECK(g.texels[3] == mean(3, 5, 3, 5));  // (19+20+24+25)/4 = 22
    CHECK(g.texels[3] == 22.0f);
}

TEST_CASE("masked cells: left out of a block's mean, a block of masked cells stays masked") {
    // A causal mask over 4 x 4: 1 above the diagonal.
    attn::Matrix mask = attn::Matrix::Zero(4, 4);
    for (int r = 0; r < 4; ++r)
        for (int c = r + 1; c < 4; ++c) mask(r, c) = 1.0f;
    const attn::Matrix m = counting(4, 4);
    const app::TexelGrid g = app::texels_for(m, &mask, 2);
    REQUIRE(g.factor == 2);
    CHECK(g.texels[0] == (1.0f + 5.0f + 6.0f) / 3.0f);  // (0,1) is masked
    CHECK(std::isinf(g.texels[1]));                      // the block above the diagonal
    CHECK(g.texels[1] < 0.0f);
    CHECK(g.texels[2] == (9.0f + 10.0f + 13.0f + 14.0f) / 4.0f);
    CHECK(g.texels[3] == (11.0f + 15.0f + 16.0f) / 3.0f);

    // -inf in the values themselves (the masked scores stage) counts the same.
    attn::Matrix scores = m;
    for (int r = 0; r < 4; ++r)
        for (int c = r + 1; c < 4; ++c) scores(r, c) = -INFINITY;
    const app::TexelGrid s = app::texels_for(scores, nullptr, 2);
    CHECK(s.texels == g.texels);

    // At one texel per cell a mask still gives its own copy, with -inf where masked.
    const app::TexelGrid full = app::texels_for(m, &mask, 2048);
    REQUIRE(full.texels.size() == 16);
    CHECK(std::isinf(full.texels[1]));
    CHECK(full.texels[4] == 5.0f);
}

TEST_CASE("a mask of another shape is ignored rather than read out of bounds") {
    const attn::Matrix m = counting(4, 4);
    const attn::Matrix mask = attn::Matrix::Ones(2, 2);
    const app::TexelGrid g = app::texels_for(m, &mask, 2048);
    CHECK(g.texels.empty());
}

TEST_CASE("a heatmap's texture has about a texel a pixel, as a power of two") {
    CHECK(app::texel_budget(700.0f) == 1024);  // 8192 weights in a 700-pixel card: blocks of 8
    CHECK(app::texel_budget(1024.0f) == 1024);
    CHECK(app::texel_budget(1025.0f) == 2048);
    CHECK(app::texel_budget(28.0f) == 32);        // a thumbnail of the head strip
    CHECK(app::texel_budget(5000.0f) == app::kMaxHeatmapTexels);
    CHECK(app::texel_budget(0.0f) == 1);
    CHECK(attn::block_factor(8192, 8192, app::texel_budget(700.0f)) == 8);
}
