#pragma once
// One interface every model family implements once: a GPT-2-shaped model (chapter 4's,
// the shipped one, GPT-2 checkpoints: gpt_model.h) and a Llama-family one (Llama 3,
// SmolLM2, Qwen2.5, Qwen3: llama_checkpoint.h). What is written over the residual stream
// (switching heads off, patching them, the logit lens, splitting a logit into its parts:
// core/interventions/) is written once against it.
//
// A block, in either family, is the same five steps; only the norms, the heads and the
// MLP inside them differ:
//   normed1 = norm1(inputs);  z = heads(normed1)             T x heads*head_dim
//   attn_out = z @ W_O (+ b_O);  residual1 = inputs + attn_out
//   mlp_out = mlp(norm2(residual1));  outputs = residual1 + mlp_out
// z is each head's context vectors side by side, what the output projection (out_proj,
// c_proj, o_proj) reads: the point where a hook changes a head.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attention/kept_stages.h"
#include "attention/trace.h"
#include "model/model_source.h"
#include "model/z_hook.h"

namespace attn {

// One block's activations, T rows each (TransformerLens's hook names in brackets).
struct BlockActivations {
    Matrix inputs;     // the residual stream entering the block            [resid_pre]
    Matrix z;          // every head's context vectors, T x heads*head_dim    [z]
    Matrix attn_out;   // z @ W_O + b_O: T x d                               [attn_out]
    Matrix residual1;  // inputs + attn_out                                  [resid_mid]
    Matrix mlp_out;    // the MLP's output: T x d                            [mlp_out]
    Matrix outputs;    // residual1 + mlp_out: the next block's inputs       [resid_post]
    Trace attention;   // the heads' stages the caller asked to keep (the weights, ...)
};

class LanguageModel {
public:
    virtual ~LanguageModel() = default;
    virtual ModelShape shape() const = 0;

    // The residual stream entering the first block as the parts that add up to it, in
    // the order the forward adds them: {"embed", T x d}, and {"pos_embed", T x d} where
    // positions are learned. Throws for an id outside the vocabulary or too many ids.
    virtual std::vector<std::pair<std::string, Matrix>> embedding_parts(const std::vector<int64_t>& ids) const = 0;
    // Block `layer` on `inputs` (T x d): the heads keeping `keep`'s stages, then `hook`
    // (when set) on z, then the rest (finish_block).
    virtual BlockActivations block(int layer, const Matrix& inputs, const KeptStages& keep, const ZHook& hook) const = 0;
    // The block from its z on (a.inputs and a.z set): attn_out, residual1, mlp_out,
    // outputs. Rerunning one head's change of a block costs this, not the heads.
    virtual void finish_block(int layer, BlockActivations& a) const = 0;

    // The final norm: (R x d) -> R x d.
    virtual Matrix final_norm(const Matrix& x) const = 0;
    // The final norm's linear part applied to `part` (1 x d) with the scale the norm
    // takes from `whole` (the residual stream that part belongs to) held fixed:
    // LayerNorm's weight * (part - mean(part)) / sqrt(var(whole) + eps), RMSNorm's
    // weight * part / sqrt(mean(whole^2) + eps). The parts of a residual stream, each
    // through this, plus final_norm_bias, add up to final_norm(whole).
    virtual RowVector final_norm_linear(const RowVector& part, const RowVector& whole) const = 0;
    // LayerNorm's shift; none for RMSNorm.
    virtual std::optional<RowVector> final_norm_bias() const = 0;
    // The output head: (R x d) normed rows -> R x vocab.
    virtual Matrix logits(const Matrix& normed) const = 0;
    // Token `id`'s column of the output head (1 x d): its logit is normed . column.
    virtual RowVector unembedding(int64_t id) const = 0;

    // Block `layer`'s output projection in the x @ W orientation (heads*head_dim x d):
    // head h's part of attn_out is its slice of z times rows [h*head_dim, (h+1)*head_dim).
    virtual Matrix out_proj_weight(int layer) const = 0;
    virtual std::optional<RowVector> out_proj_bias(int layer) const = 0;
};

// Each family's implementation (gpt_language_model.cpp, llama_language_model.cpp); the
// model is shared, not copied.
std::unique_ptr<LanguageModel> gpt_language_model(std::shared_ptr<const GptModel> model);
std::unique_ptr<LanguageModel> llama_language_model(std::shared_ptr<const LlamaCheckpoint> model);
// The model `loaded` holds, as the interface.
std::unique_ptr<LanguageModel> language_model(const LoadedModel& loaded);

}  // namespace attn
