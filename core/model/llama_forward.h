#pragma once
// The forward pass of a Llama-family model (llama_checkpoint.h), as plain functions that
// read like transformers' modeling_llama (llm.c's style: every activation named).
// Evaluation mode, one sequence:
//   x = embed_tokens[ids]
//   per layer:  residual1 = x + attention(rms_norm(x))          (RoPE, grouped-query heads)
//               x = residual1 + down(silu(gate(n)) * up(n)),   n = rms_norm(residual1)
//   logits = rms_norm(x) @ head^T, for the positions shown only (not all T x vocabulary)
#include <cstdint>
#include <optional>
#include <vector>

#include "attention/kept_stages.h"
#include "attention/rope.h"
#include "attention/trace.h"
#include "model/llama_checkpoint.h"
#include "model/z_hook.h"

namespace attn {

struct LlamaBlockTrace {
    Matrix inputs;      // the residual stream entering the layer
    Matrix normed1;     // rms_norm(inputs, input_layernorm): what the heads read
    Trace attention;    // every query head's stages; head_groups[h]: its key/value head
    Matrix residual1;   // inputs + o_proj(the heads side by side)
    Matrix normed2;     // rms_norm(residual1, post_attention_layernorm)
    Matrix mlp_hidden;  // silu(normed2 @ W_gate) * (normed2 @ W_up): T x intermediate_size
    Matrix outputs;     // residual1 + mlp_hidden @ W_down: the next layer's inputs
};

struct LlamaTrace {
    std::vector<int64_t> ids;
    Matrix embeddings;  // embed_tokens rows: the first layer's inputs
    std::vector<LlamaBlockTrace> blocks;
    Matrix final_normed;    // rms_norm(last outputs, norm): T x d
    RowVector last_logits;  // the last position's logits: 1 x vocab
};

// RMSNorm as transformers computes it in float32: weight * (x * rsqrt(mean(x^2) + eps)), per row.
Matrix rms_norm(const ConstMatrixView& x, const RowVector& weight, double eps);
// Throws ModelFileError for no ids or more than max_position_embeddings (the embedding
// table refuses an id outside the vocabulary).
void check_llama_ids(const LlamaConfig& c, const std::vector<int64_t>& ids);
// SiLU: x * sigmoid(x).
Matrix silu(const Matrix& x);
// nn.Linear: x @ weight^T + bias, the weight as stored ([out, in]).   (T x in) -> T x out
Matrix linear(const Matrix& x, const Matrix& weight, const std::optional<RowVector>& bias = std::nullopt);
// Each of n slices of width hd of `all`, RMS-normed with `weight` (qwen3's q_norm, k_norm).
Matrix norm_slices(const Matrix& all, int n, int hd, const RowVector& weight, double eps);
// The MLP's hidden layer: silu(x @ W_gate^T) * (x @ W_up^T), T x intermediate_size
// (the MLP's output is its product with W_down).
Matrix swiglu_hidden(const LlamaLayer& w, const Matrix& normed2);

// Grouped-query attention with RoPE over one layer's normed inputs: every query head's
// stages into `t`; returns the heads' context vectors side by side (T x heads*hd), what
// o_proj reads.
Matrix llama_heads(const LlamaConfig& c, const LlamaLayer& w, const Matrix& normed, const RopeTables& rope,
                   const KeptStages& keep, Trace& t);

// The model's forward over `ids` (1 .. max_position_embeddings of them, each in the
// vocabulary: ModelFileError otherwise). `keep` says which stages of each layer's heads
// the attention traces keep.
LlamaTrace llama_forward(const LlamaCheckpoint& model, const std::vector<int64_t>& ids, const KeptStages& keep = {});
// The same with each layer's own (one a layer): the app keeps one layer's head whole.
// `hook` (when set) changes each layer's z before o_proj reads it (z_hook.h).
LlamaTrace llama_forward(const LlamaCheckpoint& model, const std::vector<int64_t>& ids,
                         const std::vector<KeptStages>& keep_per_layer, const ZHook& hook = {});
// The logits at `position` (0-based) of a forward's trace: 1 x vocab.
RowVector llama_logits_at(const LlamaCheckpoint& model, const LlamaTrace& trace, int64_t position);

}  // namespace attn
