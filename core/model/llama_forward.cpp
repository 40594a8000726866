#include "model/llama_forward.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "attention/attention.h"
#include "attention/forward_parts.h"
#include "attention/head_forward.h"
#include "attention/rope.h"
#include "numerics/gemm.h"

namespace attn {

Matrix rms_norm(const ConstMatrixView& x, const RowVector& weight, double eps) {
    Matrix out(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const float variance = x.row(i).squaredNorm() / static_cast<float>(x.cols());  // x.pow(2).mean(-1)
        const float inv = 1.0f / std::sqrt(variance + static_cast<float>(eps));        // torch.rsqrt
        out.row(i) = (weight.array() * (x.row(i).array() * inv)).matrix();
    }
    return out;
}

void check_llama_ids(const LlamaConfig& c, const std::vector<int64_t>& ids) {
    if (ids.empty()) throw ModelFileError("the text has no tokens");
    if (static_cast<int64_t>(ids.size()) > c.max_positions)
        throw ModelFileError(std::to_string(ids.size()) + " tokens are more than the model's max_position_embeddings (" +
                             std::to_string(c.max_positions) + ")");
}

Matrix silu(const Matrix& x) {
    const auto v = x.array();
    return (v / (1.0f + (-v).exp())).matrix();
}

Matrix linear(const Matrix& x, const Matrix& weight, const std::optional<RowVector>& bias) {
    return linear_product(x, weight, Transpose::Yes, bias);  // (T x in) @ (out x in)^T -> T x out
}

Matrix norm_slices(const Matrix& all, int n, int hd, const RowVector& weight, double eps) {
    Matrix out(all.rows(), all.cols());
    for (int i = 0; i < n; ++i) out.middleCols(i * hd, hd) = rms_norm(all.middleCols(i * hd, hd), weight, eps);
    return out;
}

Matrix swiglu_hidden(const LlamaLayer& w, const Matrix& normed2) {
    return (silu(linear(normed2, w.W_gate)).array() * linear(normed2, w.W_up).array()).matrix();  // T x ff
}

Matrix llama_heads(const LlamaConfig& c, const LlamaLayer& w, const Matrix& normed, const RopeTables& rope,
                 const KeptStages& keep, Trace& t) {
    const int H = c.heads, G = c.kv_heads, hd = c.head_dim;
    const Eigen::Index T = normed.rows();
    Matrix queries = linear(normed, w.W_query, w.b_query);       // T x H*hd
    Matrix keys = linear(normed, w.W_key, w.b_key);              // T x G*hd
    const Matrix values = linear(normed, w.W_value, w.b_value);  // T x G*hd
    if (w.q_norm) {  // qwen3: each head's queries and keys RMS-normed before RoPE
        queries = norm_slices(queries, H, hd, *w.q_norm, c.rms_norm_eps);
        keys = norm_slices(keys, G, hd, *w.k_norm, c.rms_norm_eps);
    }
    const Matrix queries_rotated = apply_rope_to_heads(queries, H, hd, rope);
    const Matrix keys_rotated = apply_rope_to_heads(keys, G, hd, rope);

    t.causal = true;
    t.kept = keep;  // what the views may ask for again (another head's every stage)
    prepare_heads(t, H, T, T, keep);
    Matrix concat(T, Eigen::Index{H} * hd);
    for (int h = 0; h < H; ++h) {
        const int g = h / c.group_size();  // repeat_interleave: heads 0..group_size-1 share key/value head 0
        t.head_groups.push_back(g);
        HeadTrace& head = t.heads[static_cast<size_t>(h)];
        const auto keeps = [&](const char* name) { return keep.keeps(h, name); };
        if (keeps("queries")) head.add("queries", queries.middleCols(h * hd, hd));
        if (keeps("keys")) head.add("keys", keys.middleCols(g * hd, hd), Axis::Tokens);
        if (keeps("values")) head.add("values", values.middleCols(g * hd, hd), Axis::Tokens);
        if (keeps("queries_rotated")) head.add("queries_rotated", queries_rotated.middleCols(h * hd, hd));
        if (keeps("keys_rotated")) head.add("keys_rotated", keys_rotated.middleCols(g * hd, hd), Axis::Tokens);
        const HeadJob job{queries_rotated.middleCols(h * hd, hd), keys_rotated.middleCols(g * hd, hd),
                          values.middleCols(g * hd, hd), true, Axis::Tokens, false, {nullptr}};
        Matrix* preview = keep.preview_side > 0 ? &t.weights_previews[static_cast<size_t>(h)] : nullptr;
        concat.middleCols(h * hd, hd) = attend_head(job, nullptr, h, keep, head, preview)[0];  // T x hd
    }
    return concat;
}

ModelTrace llama_forward(const LlamaCheckpoint& model, const std::vector<int64_t>& ids, const KeptStages& keep) {
    return llama_forward(model, ids, std::vector<KeptStages>(static_cast<size_t>(model.config().layers), keep), {},
                         {static_cast<Eigen::Index>(ids.size()) - 1});
}

ModelTrace llama_forward(const LlamaCheckpoint& model, const std::vector<int64_t>& ids,
                         const std::vector<KeptStages>& keep_per_layer, const ZHook& hook,
                         std::vector<Eigen::Index> logit_rows) {
    const LlamaConfig& c = model.config();
    if (keep_per_layer.size() != static_cast<size_t>(c.layers))
        throw ModelFileError("llama_forward: one KeptStages a layer");  // a caller's mistake
    check_llama_ids(c, ids);
    for (const Eigen::Index r : logit_rows)
        if (r < 0 || r >= static_cast<Eigen::Index>(ids.size())) throw std::logic_error("llama_forward: a logit row past the text");
    ModelTrace trace;
    trace.ids = ids;
    trace.embeddings = model.embeddings(ids);  // T x d
    const Eigen::Index T = trace.embeddings.rows();
    const RopeTables rope = rope_tables(T, c.head_dim, c.rope_theta, c.rope_scaling);
    trace.blocks.reserve(static_cast<size_t>(c.layers));
    const Matrix* x = &trace.embeddings;
    // Each layer's weights converted into the same storage in turn, the model's, kept
    // from one forward to the next.
    LlamaCheckpoint::Workspace& workspace = model.workspace();
    const std::lock_guard<std::mutex> hold(workspace.lock);
    LlamaLayer& w = workspace.layer;
    for (int i = 0; i < c.layers; ++i) {
        model.layer(i, w);
        BlockTrace b;
        b.inputs = *x;
        b.normed1 = rms_norm(b.inputs, w.input_norm, c.rms_norm_eps);
        Matrix concat = llama_heads(c, w, b.normed1, rope, keep_per_layer[static_cast<size_t>(i)], b.attention);  // T x H*hd
        if (hook) hook(i, concat);
        b.attention.output = {linear(concat, w.W_out)};                             // o_proj: T x d
        b.residual1 = b.inputs + b.attention.output[0];
        b.normed2 = rms_norm(b.residual1, w.post_attention_norm, c.rms_norm_eps);
        b.ff_hidden = swiglu_hidden(w, b.normed2);
        b.outputs = b.residual1 + linear(b.ff_hidden, w.W_down);  // T x d
        trace.blocks.push_back(std::move(b));
        x = &trace.blocks.back().outputs;
    }
    trace.final_normed = rms_norm(*x, model.final_norm(), c.rms_norm_eps);
    if (logit_rows.empty())
        for (Eigen::Index i = 0; i < T; ++i) logit_rows.push_back(i);
    trace.logits.resize(static_cast<Eigen::Index>(logit_rows.size()), c.vocab_size);  // R x vocab, a row at a time from the file
    for (size_t r = 0; r < logit_rows.size(); ++r)
        trace.logits.row(static_cast<Eigen::Index>(r)) = model.logits(trace.final_normed.row(logit_rows[r]));
    trace.logit_rows = std::move(logit_rows);
    return trace;
}

RowVector llama_logits_at(const LlamaCheckpoint& model, const ModelTrace& trace, int64_t position) {
    const auto at = std::find(trace.logit_rows.begin(), trace.logit_rows.end(), position);
    if (at != trace.logit_rows.end()) return trace.logits.row(at - trace.logit_rows.begin());
    if (position < 0 || position >= trace.final_normed.rows())
        throw ModelFileError("position " + std::to_string(position) + " is outside the text");
    return model.logits(trace.final_normed.row(position));
}

}  // namespace attn
