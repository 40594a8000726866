#pragma once
// The attention variants of the seed documents, each a plain forward function that
// records every stage. Names follow the book (chapter 3) and seed 004.
#include <cstdint>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include "base/user_error.h"
#include "numerics/torch_random.h"
#include "attention/trace.h"
#include "attention/variants.h"

namespace attn {

// What a module accepts: the settings table's rows (setting_table.cpp) give the same
// ranges to the CLI's flags and the app's controls.
namespace limits {
constexpr int kMaxWidth = 4096;  // d_in, d_out, d_out_v, kv_len, latent_dim
constexpr int kMaxHeads = 64;    // heads, kv_groups
constexpr int kMaxBatch = 64;
constexpr int kMinRopeBase = 2, kMaxRopeBase = 1'000'000'000;
constexpr int kMaxWindow = 1 << 20;
}  // namespace limits

struct AttentionConfig {
    Variant variant = Variant::SelfV1;
    int d_out = 2;
    int d_out_v = 2;                 // value width for self-v1 and cross (004's d_out_v)
    int heads = 1;
    double dropout = 0.0;
    bool training = true;            // nn.Module.train(): dropout active
    bool qkv_bias = false;
    bool causal = false;             // masks self-v1/self-v2/cross (004's causal section)
    int batch = 1;
    uint64_t seed = 123;             // torch.manual_seed before the module is built
    std::optional<uint64_t> dropout_seed;  // torch.manual_seed right before the forward
    int kv_len = 8;                  // rows of torch.rand(kv_len, d_in) for cross without a second text
    // Today's variants (attention/variants.h says which takes which).
    int kv_groups = 1;               // gqa: heads / kv_groups heads share each key/value group
    bool rope = false;               // gqa: rotary position embeddings on queries and keys
    int rope_base = 10000;           // compute_rope_params' theta_base
    int window = 3;                  // swa: query i sees keys j with 0 <= i - j < window
    std::optional<int> latent_dim;   // mla: the cached latent's width; max(16, d_out / 8) when unset
};

// Thrown for a configuration the module itself would reject (d_out % heads, ...).
struct ConfigError : UserError {
    using UserError::UserError;
};

// The projections of one head, in the `x @ W` orientation (torch's Linear weight.T).
struct Projections {
    Matrix W_query, W_key, W_value;
    std::optional<RowVector> b_query, b_key, b_value;
};

// The parameters of a module, built from cfg.seed in the order its class builds them.
struct AttentionModule {
    AttentionConfig cfg;
    int d_in = 0;
    // One per head; for mha a single entry holding the full (split at forward) matrices.
    std::vector<Projections> projections;
    std::optional<Linear> out_proj;      // mha and today's variants
    std::optional<Linear> latent_down;   // mla: W_DKV, the inputs down to the cached latent
    std::optional<Matrix> random_kv;     // cross without a second text: torch.rand(kv_len, d_in)
    TorchGenerator generator_after_init{0};  // what the forward's dropout continues from
};

// Throws ConfigError for a configuration the module's class would reject.
AttentionModule build_attention(int d_in, const AttentionConfig& cfg);
// The same drawing from `gen` as it stands (cfg.seed unused): a module built inside a
// larger one (chapter 4's GPTModel builds one per transformer block).
AttentionModule build_attention(int d_in, const AttentionConfig& cfg, TorchGenerator& gen);

// The forward pass, every stage `keep` asks for recorded (by default all). For cross, x2
// holds the keys' input (null: the module's random rows).
Trace forward(const AttentionModule& module, const Matrix& x, const Matrix* x2, const KeptStages& keep = {});
// The trace a forward starts from (its inputs), after checking them against the module.
Trace begin_forward(const AttentionModule& module, const Matrix& x, const Matrix* x2, const KeptStages& keep);
// Reruns dropout, context vectors, head concatenation, out_proj and the output from the
// weights and values the trace kept: what a change of the dropout rate, training mode
// or dropout seed needs. Throws std::logic_error when the trace did not keep them.
void attention_output(Trace& trace, const AttentionConfig& cfg);
// The same as a variant's forward gives its heads' work (variants.h): the dropout drawn
// at once, then a head at a time, then the heads combined (forward_steps.h steps it).
// `trace` and what it holds stay where they are until finish() has run.
HeadWork output_work(Trace& trace, const AttentionConfig& cfg);
// Builds the module from cfg.seed and runs its forward.
Trace run_attention(const Matrix& x, const Matrix* x2, const AttentionConfig& cfg, const KeptStages& keep = {});

// mla's latent width: cfg.latent_dim, else MultiHeadLatentAttention's max(16, d_out // 8).
int latent_dim_of(const AttentionConfig& cfg);

// Whether the module hides the future (triu(ones, 1)): CausalAttention and the multi-head
// modules always, self-v1/self-v2/cross with causal set (004's causal section).
bool is_causal(const AttentionConfig& cfg);

// softmax over each row, as torch.softmax(dim=-1) in float; -inf gives 0.
// Throws ConfigError if a row is -inf throughout (torch would silently give NaN).
Matrix softmax_rows(const Matrix& scores);

// x @ W (+ b): a projection in the x @ W orientation (queries, keys, values).
Matrix project(const Matrix& x, const Matrix& W, const std::optional<RowVector>& b);

// triu(ones(rows, cols), diagonal=1): 1 above the diagonal (the future), 0 elsewhere.
Matrix causal_mask(int rows, int cols);

}  // namespace attn
