#pragma once
// A matrix reduced to the means of its factor x factor blocks, as a mipmap level is:
// what a heatmap larger than a texture may be uploads (app/state/level_of_detail.h),
// and what a run too long to keep every head's weights keeps of the heads off screen
// (attention/head_forward.cpp). Rows are added one at a time, in order, so the full
// matrix never has to exist at once.
#include <vector>

#include "numerics/tensor.h"

namespace attn {

// The block side that fits `rows` x `cols` cells into `max_side` on a side (at least 1;
// the longer side decides, so blocks stay square).
int block_factor(long rows, long cols, int max_side);

class BlockMeans {
public:
    BlockMeans(long rows, long cols, int factor);
    long rows() const { return (rows_ + factor_ - 1) / factor_; }  // of the means
    long cols() const { return (cols_ + factor_ - 1) / factor_; }
    int factor() const { return static_cast<int>(factor_); }

    // The next row (0, 1, ... in order) of `cols` cells. A cell is masked, and left out
    // of its block's mean, when it lies at or past `seen`, is -inf, or (with `mask`) has
    // mask > 0.5. Throws std::logic_error past the last row.
    void add_row(const float* values, long seen, const float* mask = nullptr);
    // The means, rows() x cols(); -inf where a block has no unmasked cell. Every row must
    // have been added (std::logic_error otherwise).
    Matrix take();

private:
    void finish_texel_row();
    long rows_, cols_, factor_;
    long next_row_ = 0;
    Matrix means_;
    std::vector<double> sum_;  // of the texel row being filled, per texel column
    std::vector<long> count_;
};

}  // namespace attn
