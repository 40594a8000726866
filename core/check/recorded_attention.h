#pragma once
// A user's own attention module as scripts/attnscope_record.py records it (docs/check.md):
// one safetensors file holding its input, its parameters, the stages its hooks saw and its
// settings as metadata. What `attnscope-cli --check` reads.
//
// The file comes from a stranger: its shapes are checked against one another and against
// the settings, and a file that does not fit is refused in one line naming what is wrong
// (ModelFileError), never read past.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "numerics/tensor.h"

namespace attn {

// Which of the book's classes the record is: chapter 3's SelfAttention_v2, CausalAttention or
// MultiHeadAttention (no "variant" setting: the files written before any variant read as they
// did), chapter 3's two whose parameters are laid out otherwise (SelfV1: "self-v1", nn.Parameter
// used as x @ W; MhaWrapper: "mha-wrapper", a CausalAttention a head), or one of chapter 4's
// bonus classes.
enum class RecordedVariant { Chapter3, Gqa, Swa, Mla, Alibi, SelfV1, MhaWrapper };

struct RecordedAttention {
    std::string class_name;  // the module's class, e.g. "MultiHeadAttention"
    RecordedVariant variant = RecordedVariant::Chapter3;
    // d_out is the width of the queries, every head's side by side: mha-wrapper's is num_heads
    // times the file's d_out setting (each head's, the class's argument), so head_dim() is a
    // head's own d_out there as in the split classes.
    int d_in = 0, d_out = 0, heads = 1;
    double dropout = 0.0;
    bool training = false, qkv_bias = false, mask = false, out_proj = false;
    // What the user said they meant (record(..., qkv_bias=False)); absent when not said.
    std::optional<bool> stated_qkv_bias;
    int kv_groups = 0;               // gqa: num_kv_groups (the others: one group a head)
    std::optional<int> rope_base;    // gqa with RoPE (llama3.py's)
    std::optional<int> window;       // swa: sliding_window_size (absent: None, plain causal)
    int latent_dim = 0;              // mla: W_DKV's width
    Matrix input;                                      // T x d_in
    // d_in x d_out: x @ W (torch's weight.T; self-v1's nn.Parameter as they are). gqa's W_key
    // and W_value are d_in x kv_width(); mla's are W_UK and W_UV, latent_dim x d_out;
    // mha-wrapper's hold each head's nn.Linear side by side (head h: columns h·head_dim on),
    // its biases likewise, so that x @ W gives the recorded queries of every head at once.
    Matrix W_query, W_key, W_value;
    std::optional<RowVector> b_query, b_key, b_value;  // 1 x their width
    std::optional<Matrix> W_DKV;                       // mla: d_in x latent_dim
    std::optional<RowVector> b_DKV;
    std::optional<Matrix> W_out;                       // d_out x d_out: x @ W
    std::optional<RowVector> b_out;
    std::optional<std::vector<float>> slopes;          // alibi: the module's own, one a head
    // The stages the hooks saw, as the file names them after "stage.": queries, concat and
    // output (T x d_out), keys and values (T x kv_width()), latents (mla, T x latent_dim),
    // and weights, dropped_weights (one T x T matrix a head). A stage the module has no hook
    // for is absent. Stages are the user's numbers: they may hold inf or nan (dropout on
    // masked scores); the input and the parameters are finite.
    std::map<std::string, std::vector<Matrix>> stages;
    int tokens() const { return static_cast<int>(input.rows()); }
    int head_dim() const { return d_out / heads; }
    // Key/value groups: gqa's num_kv_groups, else one a head. Head h reads group h / (heads / groups).
    int groups() const { return variant == RecordedVariant::Gqa ? kv_groups : heads; }
    int group_of(int head) const { return head / (heads / groups()); }
    int kv_width() const { return groups() * head_dim(); }
    // Whether the future is hidden: the book's classes with a mask buffer, the wrapper (its
    // heads are CausalAttention: causal by construction, so a head that forgot the mask is a
    // mistake to find) and every one of today's variants, whose forwards build the mask.
    bool causal() const {
        return mask || (variant != RecordedVariant::Chapter3 && variant != RecordedVariant::SelfV1);
    }
    // The user said qkv_bias=False and the projections have biases all the same: the check
    // runs what they meant, without them.
    bool biases_unintended() const { return stated_qkv_bias == false && (b_query || b_key || b_value || b_DKV); }
};

// Reads `path`. Throws ModelFileError "PATH: REASON" for a file that is not such a
// record: not safetensors, missing input or W_query/W_key/W_value, settings that are not
// numbers, a stage or parameter whose shape does not fit the others ("stage.weights is
// [3, 6, 6]: 2 heads of 6 tokens make [2, 6, 6]"; "param.heads.1.W_key.weight is [3, 3]:
// nn.Linear(3, 2) make [2, 3]"), more than kMaxCheckedTokens tokens or kMaxCheckedWeights
// weights a stage. self-v1 reads param.W_query, ... (d_in x d_out, no bias); mha-wrapper
// param.heads.H.W_query.weight, ... of every head, biases in every head or in none.
RecordedAttention read_recorded_attention(const std::string& path);

// The "variant" setting's word for each ("" for chapter 3's split and single-head classes;
// "self-v1" and "mha-wrapper", the engine's names of those two).
const char* recorded_variant_name(RecordedVariant v);

// A check runs the module's forward once and compares T x T stages: a text of a few
// thousand tokens at most (a reader's chapter 3 inputs have six).
constexpr int kMaxCheckedTokens = 4096;
constexpr double kMaxCheckedWeights = 1 << 24;  // heads x T x T: ten such stages are 640 MB

}  // namespace attn
