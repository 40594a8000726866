#include "model/gpt_forward.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "numerics/gelu_rows.h"
#include "numerics/gemm.h"
#include "numerics/in_parts.h"

namespace attn {

Matrix layer_norm(const Matrix& x, const LayerNormWeights& w) {
    constexpr float kEps = 1e-5f;
    Matrix out(x.rows(), x.cols());
    const auto n = static_cast<float>(x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const auto row = x.row(i).array();
        const float mean = row.sum() / n;
        const float var = (row - mean).square().sum() / n;  // unbiased=False
        const float inv = 1.0f / std::sqrt(var + kEps);
        out.row(i) = (w.scale.array() * ((row - mean) * inv) + w.shift.array()).matrix();
    }
    return out;
}

Matrix gelu(const Matrix& x) {
    // In parts over the engine's threads (GPT-2 small at T = 1024 and two threads: the
    // other thread waited through it, 4% of the forward); each value as in one pass.
    Matrix out(x.rows(), x.cols());
    in_parts(x.size(), int64_t{1} << 16,
             [&](int64_t from, int64_t to) { gelu_tanh(x.data() + from, out.data() + from, to - from); });
    return out;
}

namespace {

// The block's second half on `residual1` (rows x d): normed2, ff_hidden, outputs.
void mlp_forward(const GptBlock& b, const Matrix& residual1, BlockTrace& t) {
    t.normed2 = layer_norm(residual1, b.norm2);
    t.ff_hidden = gelu(b.ff_in.forward(t.normed2));                            // rows x 4d
    t.outputs = residual1 + b.ff_out.forward(t.ff_hidden);                     // rows x d
}

// `mlp_rows`: the positions the MLP half runs on (empty: all T). `hook` (when set) changes
// z, the heads side by side, and out_proj is taken again on the changed z.
BlockTrace block_forward(const GptBlock& b, int layer, const Matrix& inputs, const KeptStages& keep,
                         const std::vector<Eigen::Index>& mlp_rows, const ZHook& hook) {
    BlockTrace t;
    t.inputs = inputs;
    t.normed1 = layer_norm(inputs, b.norm1);
    t.attention = forward(b.attention, t.normed1, nullptr, keep);
    if (hook) {
        Matrix z = t.attention.model.at("concat");
        hook(layer, z);
        t.attention.output[0] = linear_product(z, b.attention.out_proj->weight, Transpose::No, b.attention.out_proj->bias);
        t.attention.model.set("concat", std::move(z));
    }
    t.residual1 = inputs + t.attention.output[0];                             // shortcut
    if (mlp_rows.empty()) mlp_forward(b, t.residual1, t);
    else mlp_forward(b, t.residual1(mlp_rows, Eigen::all), t);                 // rows x d
    return t;
}

}  // namespace

ModelTrace gpt_forward(const GptModel& model, const std::vector<int64_t>& ids, const KeptStages& keep) {
    return gpt_forward(model, ids, std::vector<KeptStages>(model.blocks.size(), keep));
}

ModelTrace gpt_forward(const GptModel& model, const std::vector<int64_t>& ids, const std::vector<KeptStages>& keep,
                     std::vector<Eigen::Index> logit_rows, const ZHook& hook) {
    // In one go: the logits in one product. Blocks of ~2^24 multiply-adds are for a
    // page that draws between steps; at 16 rows each they repack the output head (50257
    // x d) for every block, which costs more than the block's product.
    GptForward forward(model, ids, keep, std::numeric_limits<double>::infinity(), std::move(logit_rows));
    forward.hook_z(hook);
    while (!forward.done()) forward.step();
    return forward.take();
}

GptForward::GptForward(const GptModel& model, std::vector<int64_t> ids, std::vector<KeptStages> keep,
                       double logit_products, std::vector<Eigen::Index> logit_rows)
    : model_(&model), keep_(std::move(keep)) {
    if (keep_.size() != model.blocks.size()) throw std::logic_error("gpt_forward: one KeptStages per block");
    check_token_ids(model.cfg, ids);
    trace_.ids = std::move(ids);
    const auto T = static_cast<Eigen::Index>(trace_.ids.size());
    for (const Eigen::Index r : logit_rows)
        if (r < 0 || r >= T) throw std::logic_error("gpt_forward: a logit row past the text");
    trace_.last_rows_only = !logit_rows.empty();
    if (logit_rows.empty())
        for (Eigen::Index i = 0; i < T; ++i) logit_rows.push_back(i);
    trace_.logit_rows = std::move(logit_rows);
    const auto R = static_cast<Eigen::Index>(trace_.logit_rows.size());
    trace_.embeddings.resize(T, model.cfg.emb_dim);
    for (Eigen::Index i = 0; i < T; ++i)
        trace_.embeddings.row(i) = model.tok_emb.row(trace_.ids[static_cast<size_t>(i)]) + model.pos_emb.row(i);
    trace_.blocks.reserve(model.blocks.size());
    const double products = static_cast<double>(R) * model.cfg.emb_dim * static_cast<double>(model.cfg.vocab_size);
    row_parts_ = products <= logit_products ? 1 : std::max(1, static_cast<int>(R) / kLogitRows);  // kLogitRows rows or more
    if (row_parts_ > 1) {
        const double rows = std::ceil(static_cast<double>(R) / row_parts_), vocab = model.cfg.vocab_size;
        const double parts = std::ceil(rows * model.cfg.emb_dim * vocab / logit_products);
        col_parts_ = static_cast<int>(std::clamp(parts, 1.0, std::max(1.0, std::floor(vocab / kLogitCols))));
    }
}

void GptForward::step() {
    if (done()) return;
    const GptModel& model = *model_;
    const auto blocks = static_cast<int>(keep_.size());
    if (done_ < blocks) {
        const Matrix& x = trace_.blocks.empty() ? trace_.embeddings : trace_.blocks.back().outputs;
        const bool last = done_ == blocks - 1;
        trace_.blocks.push_back(block_forward(model.blocks[static_cast<size_t>(done_)], done_, x,
                                              keep_[static_cast<size_t>(done_)],
                                              last && trace_.last_rows_only ? trace_.logit_rows : std::vector<Eigen::Index>{},
                                              hook_));
        ++done_;
        return;
    }
    const auto R = static_cast<Eigen::Index>(trace_.logit_rows.size());
    const Eigen::Index V = model.cfg.vocab_size;
    const int part = done_ - blocks, r = part / col_parts_, c = part % col_parts_;
    if (part == 0) {  // final_normed: R x emb_dim, R = T or the rows of the positions shown
        if (blocks) trace_.final_normed = layer_norm(trace_.blocks.back().outputs, model.final_norm);
        else if (trace_.last_rows_only) trace_.final_normed = layer_norm(trace_.embeddings(trace_.logit_rows, Eigen::all), model.final_norm);
        else trace_.final_normed = layer_norm(trace_.embeddings, model.final_norm);
        if (row_parts_ == 1 && col_parts_ == 1) {  // one product, R x vocab
            trace_.logits = output_logits(model, trace_.final_normed);
            done_ = steps();
            return;
        }
        trace_.logits.resize(R, V);
    }
    const Matrix& inputs = trace_.final_normed;
    const Eigen::Index r0 = R * r / row_parts_, rows = R * (r + 1) / row_parts_ - r0;
    const Eigen::Index c0 = V * c / col_parts_, cols = V * (c + 1) / col_parts_ - c0;
    const auto x = inputs.middleRows(r0, rows);
    // output_logits' product, on a block of its columns.
    trace_.logits.block(r0, c0, rows, cols) = model.out_head ? matmul(x, model.out_head->middleCols(c0, cols))
                                                             : matmul_transposed(x, model.tok_emb.middleRows(c0, cols));
    ++done_;
}

RowVector final_normed_at(const GptModel& model, const ModelTrace& trace, Eigen::Index position) {
    if (position < 0 || position >= static_cast<Eigen::Index>(trace.ids.size()))
        throw std::logic_error("final_normed_at: position " + std::to_string(position) + " is not in the trace");
    if (!trace.last_rows_only) return trace.final_normed.row(position);
    const auto& rows = trace.logit_rows;
    const auto at = std::find(rows.begin(), rows.end(), position);
    if (at != rows.end()) return trace.final_normed.row(at - rows.begin());
    if (trace.blocks.empty()) return layer_norm(trace.embeddings.row(position), model.final_norm);
    BlockTrace row;  // the last block's MLP half on that position: 1 x d
    mlp_forward(model.blocks.back(), trace.blocks.back().residual1.row(position), row);
    return layer_norm(row.outputs, model.final_norm);
}

RowVector logits_at(const GptModel& model, const ModelTrace& trace, Eigen::Index position) {
    const auto& rows = trace.logit_rows;
    const auto at = std::find(rows.begin(), rows.end(), position);
    if (at != rows.end()) return trace.logits.row(at - rows.begin());
    return output_logits(model, final_normed_at(model, trace, position));  // 1 x vocab_size
}

std::vector<int64_t> generate(const GptModel& model, std::vector<int64_t> ids, int max_new_tokens,
                              TokenSampler& sampler) {
    const auto context = static_cast<size_t>(model.cfg.context_length);
    for (int n = 0; n < max_new_tokens; ++n) {
        const size_t first = ids.size() > context ? ids.size() - context : 0;
        const std::vector<int64_t> window(ids.begin() + static_cast<std::ptrdiff_t>(first), ids.end());
        const auto last = static_cast<Eigen::Index>(window.size()) - 1;
        const ModelTrace t = gpt_forward(model, window, std::vector<KeptStages>(model.blocks.size(), KeptStages::only({})), {last});
        ids.push_back(sampler.next(t.logits.row(0)));
    }
    return ids;
}

std::vector<int64_t> generate_greedy(const GptModel& model, std::vector<int64_t> ids, int max_new_tokens) {
    TokenSampler argmax;  // temperature 0: draws nothing
    return generate(model, std::move(ids), max_new_tokens, argmax);
}

}  // namespace attn
