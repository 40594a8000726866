#include "attention/head_forward.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "attention/attention.h"
#include "numerics/block_means.h"
#include "numerics/exp_rows.h"

namespace attn {

namespace {

// Rows per block when a head's weights are not kept: 128 x 8192 floats (4 MB) stay in
// cache between the softmax and the product with the values.
constexpr Eigen::Index kBlockRows = 128;

using RowArray = Eigen::Array<float, 1, Eigen::Dynamic>;

// Keys row i of S can see: [first_key, seen_keys). All of them, or under the causal mask
// 0..i, and under a sliding window i - window + 1..i.
Eigen::Index seen_keys(Eigen::Index i, Eigen::Index S, bool causal) { return causal ? std::min(i + 1, S) : S; }
Eigen::Index first_key(Eigen::Index i, Eigen::Index S, Eigen::Index window) {
    return window > 0 ? std::clamp<Eigen::Index>(i - window + 1, 0, S) : 0;
}
Eigen::Index seen_keys(const HeadJob& job, Eigen::Index i) { return seen_keys(i, job.keys.rows(), job.causal); }
Eigen::Index first_key(const HeadJob& job, Eigen::Index i) { return first_key(i, job.keys.rows(), job.window); }

// Rows [r0, r0 + rows) of the weights into `out` (rows x S). Only the keys some row of
// the block sees are multiplied; the rest of each row becomes 0, up to the block's last
// seen key only when `whole_rows` is false (a block multiplied by the values and dropped:
// under the causal mask the zeros past it were half of a T = 1024 forward's memset).
void weights_rows(const HeadJob& job, Eigen::Index r0, Eigen::Index rows, float root_d_k, MatrixView out,
                  bool whole_rows = true) {
    const Eigen::Index c0 = first_key(job, r0), c1 = seen_keys(job, r0 + rows - 1);
    const Eigen::Index width = whole_rows ? out.cols() : c1;
    // (rows x d_k) @ (d_k x (c1 - c0)) -> rows x (c1 - c0)
    gemm(1.0f, job.queries.middleRows(r0, rows), Transpose::No, job.keys.middleRows(c0, c1 - c0), Transpose::Yes,
         0.0f, out.middleCols(c0, c1 - c0));
    for (Eigen::Index i = 0; i < rows; ++i) {
        const Eigen::Index first = first_key(job, r0 + i);
        out.row(i).head(first).setZero();
        softmax_row(&out(i, first), seen_keys(job, r0 + i) - first, width - first, root_d_k, r0 + i,
                    job.alibi_slope, first);
    }
}

// The pre-softmax stages, whole: each is a T x S matrix, kept only on request.
void record_scores(const HeadJob& job, float root_d_k, int head, const KeptStages& keep, HeadTrace& trace) {
    const Eigen::Index T = job.queries.rows(), S = job.keys.rows();
    Matrix scores = matmul_transposed(job.queries, job.keys);  // (T x d_k) @ (d_k x S) -> T x S
    Matrix scaled = scores / root_d_k;
    Matrix bias, biased;  // ALiBi's: scaled + bias goes into the softmax
    if (job.alibi_slope > 0.0f) {
        bias.resize(T, S);
        for (Eigen::Index i = 0; i < T; ++i)
            for (Eigen::Index j = 0; j < S; ++j) bias(i, j) = alibi_bias(job.alibi_slope, i, j);
        biased = scaled + bias;
    }
    Matrix mask = attention_mask(T, S, job.causal, job.window);
    Matrix masked = (mask.array() > 0.5f).select(kMinusInf, bias.size() ? biased : scaled);
    if (keep.keeps(head, "scores")) trace.add("scores", std::move(scores), job.key_axis);
    if (keep.keeps(head, "scaled_scores")) trace.add("scaled_scores", std::move(scaled), job.key_axis);
    if (bias.size() && keep.keeps(head, "position_bias")) trace.add("position_bias", std::move(bias), job.key_axis);
    if (keep.keeps(head, "mask")) trace.add("mask", std::move(mask), job.key_axis);
    if (keep.keeps(head, "masked_scores")) trace.add("masked_scores", std::move(masked), job.key_axis);
}

// dropped = weights * factor, for columns [c0, c0 + cols) of rows [r0, r0 + rows):
// `weights` holds those columns only.
void drop_rows(const DropoutDraws& draws, const ConstMatrixView& weights, Eigen::Index r0, Eigen::Index c0,
               MatrixView dropped) {
    for (Eigen::Index i = 0; i < weights.rows(); ++i)
        for (Eigen::Index j = 0; j < weights.cols(); ++j) dropped(i, j) = weights(i, j) * draws.factor(r0 + i, c0 + j);
}

}  // namespace

Matrix attention_mask(Eigen::Index T, Eigen::Index S, bool causal, Eigen::Index window) {
    // 1 where key j is hidden from query i: j > i under the causal mask, i - j >= window
    // with a sliding window. Row by row, the forward's [first_key, seen_keys) as zeros:
    // ones before the window's first key and past the last key seen.
    Matrix mask(T, S);
    for (Eigen::Index i = 0; i < T; ++i) {
        const Eigen::Index first = first_key(i, S, window), seen = seen_keys(i, S, causal);
        mask.row(i).head(first).setOnes();
        mask.row(i).segment(first, seen - first).setZero();
        mask.row(i).tail(S - seen).setOnes();
    }
    return mask;
}

void softmax_row(float* row, Eigen::Index seen, Eigen::Index width, float root_d_k, Eigen::Index row_index,
                 float alibi_slope, Eigen::Index first_key) {
    // torch divides by the Python float d_k**0.5, narrowed to float.
    DividedRow divided = divide_row(row, seen, root_d_k);
    if (alibi_slope > 0.0f) {
        for (Eigen::Index k = 0; k < seen; ++k) row[k] += alibi_bias(alibi_slope, row_index, first_key + k);
        Eigen::Map<RowArray> r(row, seen);
        divided = {r.maxCoeff(), (r == kMinusInf).any()};
    }
    const float max = divided.max;
    if (max == kMinusInf)
        throw ConfigError("row " + std::to_string(row_index) +
                          " of the scores is -inf wherever it is not masked (the numbers overflowed): its softmax "
                          "is undefined (NaN)");
    // Eigen's vectorised exp clamps its argument near -88, so exp(-inf) would be ~1e-38
    // rather than torch's exact 0. Masked elements lie past `seen` and are never taken;
    // a score that overflowed to -inf (rare) is remembered and set to 0 after the exp.
    std::vector<Eigen::Index> minus_inf;
    if (divided.any_minus_inf)
        for (Eigen::Index j = 0; j < seen; ++j)
            if (row[j] == kMinusInf) minus_inf.push_back(j);
    exp_shifted(row, seen, max);
    for (const Eigen::Index j : minus_inf) row[j] = 0.0f;
    scale_row(row, seen, 1.0f / row_sum(row, seen));  // torch multiplies by 1 / sum
    std::fill(row + seen, row + width, 0.0f);
}

std::vector<Matrix> attend_head(const HeadJob& job, const Matrix* given, int head, const KeptStages& keep,
                                HeadTrace& trace, Matrix* preview) {
    const Eigen::Index T = given ? given->rows() : job.queries.rows(), S = job.keys.rows();
    const Eigen::Index d_v = job.values.cols();
    const auto root_d_k = static_cast<float>(std::sqrt(static_cast<double>(job.keys.cols())));
    const auto keeps = [&](const char* name) { return keep.keeps(head, name); };
    const bool keep_dropped = job.dropout_stages && keeps("dropped_weights");

    // The weights whole when they are given, kept or needed whole; else block by block.
    Matrix whole;
    const Matrix* weights = given;
    if (!given) {
        if (keeps("scores") || keeps("scaled_scores") || keeps("position_bias") || keeps("mask") ||
            keeps("masked_scores"))
            record_scores(job, root_d_k, head, keep, trace);
        if (keeps("weights") || keep_dropped) {
            whole.resize(T, S);
            for (Eigen::Index r0 = 0; r0 < T; r0 += kBlockRows)
                weights_rows(job, r0, std::min(kBlockRows, T - r0), root_d_k, whole.middleRows(r0, std::min(kBlockRows, T - r0)));
            weights = &whole;
        }
    }
    // The first batch element's dropout factors, whole, when a kept stage shows them.
    const DropoutDraws* first_draws = job.draws.empty() ? nullptr : job.draws[0];
    const bool keep_factors = job.dropout_stages && keeps("dropout_mask");
    Matrix factors;
    if (keep_factors || (keep_dropped && first_draws))
        factors = first_draws ? dropout_factors(*first_draws) : Matrix(Matrix::Ones(T, S));
    Matrix dropped_whole;
    if (keep_dropped) dropped_whole = first_draws ? Matrix(weights->cwiseProduct(factors)) : *weights;

    std::optional<BlockMeans> means;  // of weights computed block by block, when asked for
    if (preview && !weights && keep.preview_side > 0) means.emplace(T, S, block_factor(T, S, keep.preview_side));

    std::vector<Matrix> contexts(job.draws.size(), Matrix(T, d_v));
    Matrix block, dropped;
    std::vector<float> window_mask;
    for (Eigen::Index r0 = 0; r0 < T; r0 += kBlockRows) {
        // The block's rows see keys [c0, c1) at most: the rest of their weights are 0.
        const Eigen::Index rows = std::min(kBlockRows, T - r0), c0 = first_key(job, r0),
                           c1 = seen_keys(job, r0 + rows - 1);
        if (!weights) {
            block.resize(rows, S);
            weights_rows(job, r0, rows, root_d_k, block, /*whole_rows=*/false);
            if (means)
                for (Eigen::Index i = 0; i < rows; ++i) {
                    const Eigen::Index first = first_key(job, r0 + i);  // keys before it: masked, not 0
                    if (first > 0) {
                        window_mask.assign(static_cast<size_t>(S), 0.0f);
                        std::fill_n(window_mask.begin(), first, 1.0f);
                    }
                    means->add_row(&block(i, 0), seen_keys(job, r0 + i), first > 0 ? window_mask.data() : nullptr);
                }
        }
        const ConstMatrixView w = weights ? ConstMatrixView(weights->middleRows(r0, rows)) : ConstMatrixView(block);
        // (rows x (c1 - c0)) @ ((c1 - c0) x d_v) -> rows x d_v
        const auto multiply = [&](const ConstMatrixView& lhs, size_t b) {
            gemm(1.0f, lhs, Transpose::No, job.values.middleRows(c0, c1 - c0), Transpose::No, 0.0f,
                 contexts[b].middleRows(r0, rows));
        };
        for (size_t b = 0; b < job.draws.size(); ++b) {
            if (b == 0 && keep_dropped) {
                multiply(dropped_whole.block(r0, c0, rows, c1 - c0), b);
            } else if (!job.draws[b]) {  // nothing dropped
                multiply(w.middleCols(c0, c1 - c0), b);
            } else {
                dropped.resize(rows, c1 - c0);
                drop_rows(*job.draws[b], w.middleCols(c0, c1 - c0), r0, c0, dropped);
                multiply(dropped, b);
            }
        }
    }

    if (means) *preview = means->take();
    if (!given && keeps("weights")) trace.add("weights", std::move(whole), job.key_axis);
    if (keep_factors) trace.set("dropout_mask", std::move(factors), job.key_axis);
    if (keep_dropped) trace.set("dropped_weights", std::move(dropped_whole), job.key_axis);
    if (keeps("context")) trace.set("context", contexts[0]);
    return contexts;
}

}  // namespace attn
