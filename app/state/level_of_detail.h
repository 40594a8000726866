#pragma once
// What a heatmap uploads as its texture. A matrix larger than a texture may be (the GL
// limit, and kMaxHeatmapTexels: a card is never wider than a screen) is drawn from a
// smaller one: each texel the mean of a factor x factor block of cells (attn::BlockMeans),
// as a mipmap level would be, so that a heatmap of 8192 x 8192 weights squeezed into 600
// pixels shows every row's attention rather than every 14th cell's. No GL here.
#include <vector>

#include "numerics/tensor.h"

namespace app {

constexpr int kMaxHeatmapTexels = 2048;  // on a side

// The texels a side a heatmap `pixels` wide or tall on screen needs: the power of two at
// or above it (so that a window resized a little keeps its texture), at most
// kMaxHeatmapTexels. Finer texels than pixels would be skipped by the sampler (every
// third cell of 8192 drawn in 700 pixels); their block means are what a pixel covers.
int texel_budget(float pixels);

struct TexelGrid {
    int cols = 0, rows = 0;   // of the texture
    int factor = 1;           // cells per texel on a side (1: one texel per cell)
    std::vector<float> texels;  // rows x cols, row-major; empty when `m` is uploaded as it is
};

// The texels for m (row-major, a texture row per matrix row). Cells where
// masked_by > 0.5 (when it has m's shape) count as masked (-inf). A block's texel is
// the mean of its unmasked cells, -inf when all are masked. With factor 1 and no mask,
// `texels` stays empty: m's own storage is uploaded.
TexelGrid texels_for(const attn::Matrix& m, const attn::Matrix* masked_by, int max_texels);

}  // namespace app
