#pragma once
// The forward pass of a GPT model (gpt_model.h), as plain functions that read like the
// book's chapter 4 (llm.c's style: every activation kept and named). Evaluation mode:
// no dropout, as model.eval() before generate_text_simple.
#include <cstdint>
#include <vector>

#include "model/gpt_model.h"
#include "model/model_trace.h"
#include "model/sampling.h"
#include "model/z_hook.h"

namespace attn {

// final_normed's row for `position`: the trace's, or the last block's MLP and the final
// LayerNorm on that position's residual1 row when the forward ran them on fewer rows
// (the same numbers, to float rounding: a one-row product may take another kernel).
RowVector final_normed_at(const GptModel& model, const ModelTrace& trace, Eigen::Index position);
// The logits after `position`: the trace's row when the forward computed it, else the
// output head's product on final_normed_at(position) (to float rounding, as there).
RowVector logits_at(const GptModel& model, const ModelTrace& trace, Eigen::Index position);

// LayerNorm as the book writes it: mean and biased variance over each row, eps 1e-5.
Matrix layer_norm(const Matrix& x, const LayerNormWeights& w);
// GELU in its tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
Matrix gelu(const Matrix& x);

// GPTModel.forward on one sequence of token ids (at most context_length, each below
// vocab_size: ConfigError otherwise). `keep` says which stages of each layer's heads the
// attention traces keep (KeptStages::only({}) keeps none; the output is computed anyway).
ModelTrace gpt_forward(const GptModel& model, const std::vector<int64_t>& ids, const KeptStages& keep = {});
// The same with what each layer keeps: keep[layer], one per block (a model view keeps
// every layer's weights and every stage of one layer's head), and the logits of the
// positions `logit_rows` only (empty: every position's).
// `hook` (when set) changes each block's z before out_proj reads it (z_hook.h).
ModelTrace gpt_forward(const GptModel& model, const std::vector<int64_t>& ids, const std::vector<KeptStages>& keep,
                     std::vector<Eigen::Index> logit_rows = {}, const ZHook& hook = {});

// The same forward a step at a time, for a front end that draws frames between them (the
// browser page has one thread): each step() runs the next transformer block, then the
// final LayerNorm with the first block of logits, then the further blocks of logits (the
// T x vocab product is the forward's largest: the shipped model's at 128 tokens is 2.5
// GFLOP, 0.6 s in wasm). Each logit is one dot
// product over emb_dim in the same order however rows and columns are grouped (gemm.h),
// so the trace is the one product's, bit for bit (tests/test_gpt_model.cpp). gpt_forward
// is this run to its end with the logits in one product (blocks of a few rows repack the
// output head for each: slower when nothing is drawn between them). `model` must outlive
// the object.
class GptForward {
public:
    // The logits of the positions `logit_rows` (empty: all), in blocks of at most
    // `logit_products` multiply-adds where there are 2 * kLogitRows rows or more; fewer
    // rows in one product. Checks as gpt_forward.
    GptForward(const GptModel& model, std::vector<int64_t> ids, std::vector<KeptStages> keep,
               double logit_products = kLogitProducts, std::vector<Eigen::Index> logit_rows = {});
    int steps() const { return static_cast<int>(keep_.size()) + row_parts_ * col_parts_; }
    int steps_done() const { return done_; }
    bool done() const { return done_ == steps(); }
    void step();
    // Changes each block's z before out_proj reads it (z_hook.h), from the next block on.
    void hook_z(ZHook hook) { hook_ = std::move(hook); }
    ModelTrace take() { return std::move(trace_); }  // once done()

    // A block of logits has at least this many rows (the web build's products of 16 rows
    // or more all take the same SIMD kernel) and kLogitCols columns (OpenBLAS's
    // small-matrix kernel stays out), and about kLogitProducts multiply-adds (~10 ms in
    // wasm on the project's machine).
    static constexpr int kLogitRows = 16, kLogitCols = 2048;
    static constexpr double kLogitProducts = 1 << 24;

private:
    const GptModel* model_;
    std::vector<KeptStages> keep_;
    ZHook hook_;
    ModelTrace trace_;
    int row_parts_ = 1, col_parts_ = 1;
    int done_ = 0;
};

// Chapter 5's generate (eos_id None): appends `max_new_tokens` tokens, each `sampler`'s
// pick from the logits of the last position after a full forward of the context
// cropped to its last context_length tokens. The sampler's random stream goes on.
std::vector<int64_t> generate(const GptModel& model, std::vector<int64_t> ids, int max_new_tokens,
                              TokenSampler& sampler);
// generate_text_simple: generate with temperature 0 (the argmax each time).
std::vector<int64_t> generate_greedy(const GptModel& model, std::vector<int64_t> ids, int max_new_tokens);

}  // namespace attn
