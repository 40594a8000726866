#include "numerics/block_means.h"

#include <algorithm>
#include <stdexcept>

namespace attn {

namespace {
}

int block_factor(long rows, long cols, int max_side) {
    const long longest = std::max(rows, cols);
    const long limit = std::max(1, max_side);
    return static_cast<int>(std::max(1L, (longest + limit - 1) / limit));
}

BlockMeans::BlockMeans(long rows, long cols, int factor)
    : rows_(std::max(0L, rows)), cols_(std::max(0L, cols)), factor_(std::max(1, factor)) {
    means_.resize(this->rows(), this->cols());
    sum_.assign(static_cast<size_t>(this->cols()), 0.0);
    count_.assign(static_cast<size_t>(this->cols()), 0);
}

void BlockMeans::add_row(const float* values, long seen, const float* mask) {
    if (next_row_ >= rows_) throw std::logic_error("BlockMeans: more rows than the matrix has");
    seen = std::clamp(seen, 0L, cols_);
    // Only the blocks that hold a seen cell: a causal row leaves the rest untouched.
    for (long tc = 0; tc * factor_ < seen; ++tc) {
        const long c0 = tc * factor_, c1 = std::min(seen, c0 + factor_);
        double sum = 0.0;
        long count = 0;
        for (long c = c0; c < c1; ++c) {
            if (values[c] == kMinusInf || (mask && mask[c] > 0.5f)) continue;
            sum += values[c];
            ++count;
        }
        sum_[static_cast<size_t>(tc)] += sum;
        count_[static_cast<size_t>(tc)] += count;
    }
    ++next_row_;
    if (next_row_ % factor_ == 0 || next_row_ == rows_) finish_texel_row();
}

void BlockMeans::finish_texel_row() {
    const long tr = (next_row_ - 1) / factor_;
    for (long tc = 0; tc < cols(); ++tc) {
        const auto i = static_cast<size_t>(tc);
        means_(tr, tc) = count_[i] ? static_cast<float>(sum_[i] / static_cast<double>(count_[i])) : kMinusInf;
    }
    std::fill(sum_.begin(), sum_.end(), 0.0);
    std::fill(count_.begin(), count_.end(), 0);
}

Matrix BlockMeans::take() {
    if (next_row_ != rows_) throw std::logic_error("BlockMeans: rows are missing");
    return std::move(means_);
}

}  // namespace attn
