#pragma once
// One interface every model family implements once: a GPT-2-shaped model (chapter 4's,
// the shipped ones, GPT-2 checkpoints: gpt_language_model.cpp) and a Llama-family one
// (Llama 3, SmolLM2, Qwen2.5, Qwen3: llama_language_model.cpp). A run (run/model_run.h:
// tokens, the traced forward, the KV cache, generation, the next tokens) and what is
// written over the residual stream (switching heads off, patching them, the logit lens,
// splitting a logit into its parts: core/interventions/) are written once against it;
// adding a family is an implementation of it and a row of load_model (model_source.cpp).
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
#include "base/work_estimate.h"
#include "model/gpt_model.h"
#include "model/key_value_cache.h"
#include "model/llama_checkpoint.h"
#include "model/model_trace.h"
#include "model/sampling.h"
#include "model/z_hook.h"
#include "text/tokenizer.h"
#include "text/hf_tokenizer.h"
#include "text/tokenizer_table.h"

namespace attn {

// What the views need of any model.
struct ModelShape {
    int layers = 0, heads = 0;  // query heads a layer
    int kv_heads = 0;           // key/value heads a layer (= heads but for grouped-query attention)
    int d_model = 0;            // the residual stream's width
    int64_t vocab_size = 0, context_length = 0;
    int head_dim = 0;           // a head's query, key and value width (a Qwen3's is not d_model / heads)
};

// How a family's parts are named where a reader sees them.
struct FamilyNames {
    const char* norm;             // "LayerNorm", "RMSNorm"
    const char* context_setting;  // what its config calls the context: "context length", "max_position_embeddings"
    const char* tokens;           // what its tokens are called: "GPT-2 tokens", "tokens"
    TokenizerKind tokenizer;      // its row of the tokenizer table
    const char* tokenizer_name;   // as the token chips' caption names it: "GPT-2", "the model's tokenizer.json"
};

// A family's forward a step at a time (the browser's page draws a frame between steps),
// into the trace every front end reads.
class TracedForward {
public:
    virtual ~TracedForward() = default;
    virtual int steps() const = 0;
    virtual int steps_done() const = 0;
    bool done() const { return steps_done() == steps(); }
    // What the next step computes: "layer 3 of 12", "the logits, part 2 of 77".
    virtual std::string next_step() const = 0;
    virtual void step() = 0;
    virtual ModelTrace take() = 0;  // once done()
};

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

    // What a run needs (run/model_run.h).
    virtual const FamilyNames& names() const = 0;
    // The text as the model's tokenizer encodes it. Throws ModelFileError where the model
    // has no tokenizer attnscope reads (exact ids run it still).
    virtual Tokenized encode(const std::string& text) const = 0;
    // A token as a reader sees it ("<id>" where the tokenizer has none), and whether it is
    // a special token (GPT-2's <|endoftext|>).
    virtual std::string token_text(int64_t id) const = 0;
    virtual bool is_special(int64_t id) const = 0;
    // A run over `tokens` tokens keeping every head's weights (and, with `detail`, one
    // layer's every stage), then `generate` more, each one cached step: memory and time,
    // before it starts.
    virtual WorkEstimate run_work(int64_t tokens, int generate, bool detail) const = 0;
    // The stages a run keeps of every head: its weights, and the keys and values its
    // KV cache is made of, under the forward's names.
    virtual std::vector<std::string> cache_stages() const = 0;
    // The forward over `ids` keeping keep[layer] of each layer's heads, `hook` (when set)
    // on each block's z, and the logits of the positions `logit_rows` only (empty: all).
    // Throws for ids outside the vocabulary or past the context.
    virtual std::unique_ptr<TracedForward> traced_forward(std::vector<int64_t> ids, std::vector<KeptStages> keep,
                                                          std::vector<Eigen::Index> logit_rows,
                                                          const ZHook& hook = {}) const = 0;
    // The logits after `position` of a trace of this model: its row when the forward
    // computed it, else one row of the output head.
    virtual RowVector logits_at(const ModelTrace& trace, Eigen::Index position) const = 0;
    // The KV cache a forward that kept cache_stages() leaves.
    virtual std::unique_ptr<KeyValueCache> cache_from(const ModelTrace& trace) const = 0;
    // Chapter 5's generate after `ids`: `n` new ids, each the sampler's pick, from one
    // forward of the text and one cached step a token; the sampler's stream goes on.
    virtual std::vector<int64_t> generate(const std::vector<int64_t>& ids, int n, TokenSampler& sampler) const = 0;
    // The same after a run's cache and the logits after its last token: the text is not
    // run again, and the tokens are those one-a-run appends give.
    virtual std::vector<int64_t> generate_after(const KeyValueCache& cache, const RowVector& logits, int n,
                                                TokenSampler& sampler) const = 0;
    // Whether generate goes on past the context, its window moving on (GPT's crop), or
    // stops there (a Llama's positions are its RoPE tables').
    virtual bool generation_slides() const = 0;

    // The family's own weights, for what is written per family (its PyTorch program,
    // its weights' file): null for the other families.
    virtual const GptModel* gpt_weights() const { return nullptr; }
    virtual const LlamaCheckpoint* llama_weights() const { return nullptr; }
};

// Each family's implementation (gpt_language_model.cpp, llama_language_model.cpp); the
// model is shared, not copied. A Llama-family model's tokenizer.json, where it has one
// attnscope reads (null: exact ids only).
std::unique_ptr<LanguageModel> gpt_language_model(std::shared_ptr<const GptModel> model);
std::unique_ptr<LanguageModel> llama_language_model(std::shared_ptr<const LlamaCheckpoint> model,
                                                    std::shared_ptr<const HfTokenizer> tokenizer = nullptr);

}  // namespace attn
