#include "state/level_of_detail.h"

#include "numerics/block_means.h"

namespace app {

int texel_budget(float pixels) {
    int side = 1;
    while (side < kMaxHeatmapTexels && static_cast<float>(side) < pixels) side *= 2;
    return side;
}

TexelGrid texels_for(const attn::Matrix& m, const attn::Matrix* masked_by, int max_texels) {
    if (masked_by && (masked_by->rows() != m.rows() || masked_by->cols() != m.cols())) masked_by = nullptr;
    attn::BlockMeans means(m.rows(), m.cols(), attn::block_factor(m.rows(), m.cols(), max_texels));
    TexelGrid g;
    g.factor = means.factor();
    g.rows = static_cast<int>(means.rows());
    g.cols = static_cast<int>(means.cols());
    if (g.factor == 1 && !masked_by) return g;
    for (long r = 0; r < m.rows(); ++r)
        means.add_row(m.data() + r * m.cols(), m.cols(), masked_by ? masked_by->data() + r * m.cols() : nullptr);
    const attn::Matrix texels = means.take();
    g.texels.assign(texels.data(), texels.data() + texels.size());
    return g;
}

}  // namespace app
