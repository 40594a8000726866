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

struct RecordedAttention {
    std::string class_name;  // the module's class, e.g. "MultiHeadAttention"
    int d_in = 0, d_out = 0, heads = 1;
    double dropout = 0.0;
    bool training = false, qkv_bias = false, mask = false, out_proj = false;
    Matrix input;                                      // T x d_in
    Matrix W_query, W_key, W_value;                    // d_in x d_out: x @ W (torch's weight.T)
    std::optional<RowVector> b_query, b_key, b_value;  // 1 x d_out
    std::optional<Matrix> W_out;                       // d_out x d_out: x @ W
    std::optional<RowVector> b_out;
    // The stages the hooks saw, as the file names them after "stage.": queries, keys,
    // values and concat (T x d_out), output (T x d_out), and weights, dropped_weights
    // (one T x T matrix a head). A stage the module has no hook for is absent.
    std::map<std::string, std::vector<Matrix>> stages;
    int tokens() const { return static_cast<int>(input.rows()); }
    int head_dim() const { return d_out / heads; }
};

// Reads `path`. Throws ModelFileError "PATH: REASON" for a file that is not such a
// record: not safetensors, missing input or W_query/W_key/W_value, settings that are not
// numbers, a stage or parameter whose shape does not fit the others ("stage.weights is
// [3, 6, 6]: 2 heads of 6 tokens make [2, 6, 6]"), more than kMaxCheckedTokens tokens or
// kMaxCheckedWeights weights a stage.
RecordedAttention read_recorded_attention(const std::string& path);

// A check runs the module's forward once and compares T x T stages: a text of a few
// thousand tokens at most (a reader's chapter 3 inputs have six).
constexpr int kMaxCheckedTokens = 4096;
constexpr double kMaxCheckedWeights = 1 << 24;  // heads x T x T: ten such stages are 640 MB

}  // namespace attn
