#include "state/level_of_detail.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace app {

int texel_factor(long rows, long cols, int max_texels) {
    const long longest = std::max(rows, cols);
    const long limit = std::max(1, max_texels);
    return static_cast<int>((longest + limit - 1) / limit);
}

TexelGrid texels_for(const attn::Matrix& m, const attn::Matrix* masked_by, int max_texels) {
    if (masked_by && (masked_by->rows() != m.rows() || masked_by->cols() != m.cols())) masked_by = nullptr;
    TexelGrid g;
    g.factor = std::max(1, texel_factor(m.rows(), m.cols(), max_texels));
    const long f = g.factor;
    g.rows = static_cast<int>((m.rows() + f - 1) / f);
    g.cols = static_cast<int>((m.cols() + f - 1) / f);
    if (f == 1 && !masked_by) return g;

    constexpr float kMasked = -std::numeric_limits<float>::infinity();
    g.texels.assign(static_cast<size_t>(g.rows) * static_cast<size_t>(g.cols), 0.0f);
    std::vector<double> sum(static_cast<size_t>(g.cols));
    std::vector<long> count(static_cast<size_t>(g.cols));
    for (long tr = 0; tr < g.rows; ++tr) {
        std::fill(sum.begin(), sum.end(), 0.0);
        std::fill(count.begin(), count.end(), 0);
        const long row_end = std::min(m.rows(), (tr + 1) * f);
        // One pass over the block's rows, each read once in storage order.
        for (long r = tr * f; r < row_end; ++r) {
            const float* values = m.data() + r * m.cols();
            const float* mask = masked_by ? masked_by->data() + r * m.cols() : nullptr;
            for (long tc = 0; tc < g.cols; ++tc) {
                const long col_end = std::min(m.cols(), (tc + 1) * f);
                for (long c = tc * f; c < col_end; ++c) {
                    if (values[c] == kMasked || (mask && mask[c] > 0.5f)) continue;
                    sum[static_cast<size_t>(tc)] += values[c];
                    ++count[static_cast<size_t>(tc)];
                }
            }
        }
        float* out = g.texels.data() + tr * g.cols;
        for (long tc = 0; tc < g.cols; ++tc)
            out[tc] = count[static_cast<size_t>(tc)]
                          ? static_cast<float>(sum[static_cast<size_t>(tc)] / static_cast<double>(count[static_cast<size_t>(tc)]))
                          : kMasked;
    }
    return g;
}

}  // namespace app
