#pragma once
// A trace is what the engine returns: every intermediate tensor of one forward
// pass, named, per head. Front ends (CLI, app) draw or print whatever it holds.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attention/kept_stages.h"
#include "numerics/tensor.h"
#include "numerics/torch_random.h"

namespace attn {

// What a stage's rows and columns index, so a front end can label them.
enum class Axis { Tokens, KeyTokens, Features, One };
// How a stage's values should be read (and so coloured).
enum class Scale {
    Signed,       // any real number, diverging around 0
    Probability,  // in [0, 1]
    Mask,         // 1 = masked, 0 = kept
    Factor,       // dropout factor: 0 or 1/(1-p)
    Scores        // signed, may hold -inf where masked
};

struct Stage {
    std::string name;
    Matrix value;
    Axis rows = Axis::Tokens;
    Axis cols = Axis::Features;
    Scale scale = Scale::Signed;
};

struct StageList {
    std::vector<Stage> stages;
    const Stage* find(std::string_view name) const;
    const Matrix& at(std::string_view name) const;  // throws std::out_of_range
    Stage& add(std::string name, Matrix value, Axis rows, Axis cols, Scale scale);
    void set(std::string name, Matrix value, Axis rows, Axis cols, Scale scale);  // add or replace
    // The same with the axes and scale of the stage catalogue (stage_catalogue.h), its
    // key-token axis resolved to key_axis (needed only by stages indexed by the keys'
    // tokens). Throws std::logic_error for a name the catalogue does not know.
    Stage& add(std::string name, Matrix value, std::optional<Axis> key_axis = std::nullopt);
    void set(std::string name, Matrix value, std::optional<Axis> key_axis = std::nullopt);
};

using HeadTrace = StageList;

// What the module's KV cache holds (ch04/03_kv-cache): float32 bytes per token of one
// sequence, how many tokens it holds after this text (a sliding window keeps only the
// last W), and what multi-head attention of the same d_out would hold per token.
struct KvCacheSize {
    long bytes_per_token = 0;
    long tokens = 0;
    long mha_bytes_per_token = 0;
};

// What a trace holds besides its heads' stages: small next to them (a long run's heads
// hold hundreds of MB, which a dropout change in the browser copies a head a step).
struct TraceCommon {
    std::string variant;
    StageList model;               // inputs, inputs2, concat, W_out, b_out, ...
    std::vector<Matrix> output;    // the module's output, one T x out matrix per batch element
    KeptStages kept;               // which stages of each head it holds
    // Per head, when kept.preview_side asked for them: its weights as the means of
    // factor x factor blocks (numerics/block_means.h), -inf where a block is all masked;
    // empty for a head that keeps its weights.
    std::vector<Matrix> weights_previews;
    int preview_factor = 1;
    bool causal = false;           // every head's mask is triu(ones, 1): the future is hidden
    long window = 0;               // > 0: and keys `window` or more tokens back (sliding window)
    std::vector<int> head_groups;  // gqa: the key/value group of each head (empty otherwise)
    std::optional<KvCacheSize> kv_cache;  // today's variants: what their cache holds
    // The generator as the forward pass finds it after the module was built (or
    // re-seeded by dropout_seed): dropout draws from a copy, so that changing only the
    // dropout rate recomputes only the stages after the weights.
    std::optional<TorchGenerator> forward_generator;
};

struct Trace : TraceCommon {
    std::vector<HeadTrace> heads;  // per head, for batch element 0
};

}  // namespace attn
