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
#include "model/model_trace.h"
#include "model/z_hook.h"

namespace attn {

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
// vocabulary: ModelFileError otherwise), into the trace every family's forward leaves
// (model_trace.h: its ff_hidden is the MLP's silu(gate) * up). `keep` says which stages
// of each layer's heads the attention traces keep; the logits are the last position's
// (a row of 150k for a Qwen: not T of them).
ModelTrace llama_forward(const LlamaCheckpoint& model, const std::vector<int64_t>& ids, const KeptStages& keep = {});
// The same with each layer's own (one a layer): the app keeps one layer's head whole.
// `hook` (when set) changes each layer's z before o_proj reads it (z_hook.h). The logits
// of the positions `logit_rows` (empty: every position's).
ModelTrace llama_forward(const LlamaCheckpoint& model, const std::vector<int64_t>& ids,
                         const std::vector<KeptStages>& keep_per_layer, const ZHook& hook = {},
                         std::vector<Eigen::Index> logit_rows = {});
// The logits at `position` (0-based) of a forward's trace: its row when the forward
// computed it, else one row of the output head: 1 x vocab.
RowVector llama_logits_at(const LlamaCheckpoint& model, const ModelTrace& trace, int64_t position);

}  // namespace attn
