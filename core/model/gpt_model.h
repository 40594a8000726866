#pragma once
// A GPT-2-shaped language model: the book's chapter 4 GPTModel (and Hugging Face's
// GPT2LMHeadModel, which computes the same). Token and position embeddings, n_layers
// pre-LayerNorm transformer blocks, each the chapter 3 MultiHeadAttention (3.6.2) and a
// 4 x emb_dim feed-forward with GELU, then a final LayerNorm and the output head.
// Weights only here; the forward pass is gpt_forward.h.
#include <cstdint>
#include <optional>
#include <vector>

#include "attention/attention.h"

namespace attn {

// The book's GPT_CONFIG dictionaries.
struct GptConfig {
    int vocab_size = 50257;
    int context_length = 1024;
    int emb_dim = 768;
    int n_heads = 12;
    int n_layers = 12;
    double drop_rate = 0.1;  // nn.Dropout in training; the app and the CLI run eval()
    bool qkv_bias = false;
};
GptConfig gpt_config_124m();  // GPT_CONFIG_124M

// LayerNorm(emb_dim): scale * (x - mean) / sqrt(var + eps) + shift.
struct LayerNormWeights {
    RowVector scale, shift;  // 1 x emb_dim
};

// TransformerBlock: x + att(norm1(x)), then x + ff(norm2(x)).
struct GptBlock {
    AttentionModule attention;  // variant mha, causal, emb_dim -> emb_dim, out_proj
    Linear ff_in;               // emb_dim -> 4 emb_dim, then GELU
    Linear ff_out;              // 4 emb_dim -> emb_dim
    LayerNormWeights norm1, norm2;
};

struct GptModel {
    GptConfig cfg;
    Matrix tok_emb;  // vocab_size x emb_dim
    Matrix pos_emb;  // context_length x emb_dim
    std::vector<GptBlock> blocks;
    LayerNormWeights final_norm;
    // emb_dim x vocab_size (x @ W orientation): logits = x @ out_head. Empty in GPT-2
    // checkpoints, whose head is tied to the token embedding: logits = x @ tok_emb^T
    // (a second copy would add 154 MB to GPT-2 small).
    std::optional<Matrix> out_head;
};

// The output head: (T x emb_dim) -> T x vocab_size logits.
Matrix output_logits(const GptModel& model, const Matrix& final_normed);

// Throws ConfigError for a configuration the book's classes would reject (emb_dim not
// divisible by n_heads) or attnscope cannot hold.
void check_gpt_config(const GptConfig& cfg);
// Throws ConfigError for an id outside the model's vocabulary.
void check_token_id(const GptConfig& cfg, int64_t id);
// Throws ConfigError for no ids, more than context_length, or one outside the vocabulary.
void check_token_ids(const GptConfig& cfg, const std::vector<int64_t>& ids);

// A block's MultiHeadAttention as chapter 3 builds it: mha, causal, emb_dim -> emb_dim,
// evaluation mode.
AttentionConfig gpt_block_attention(const GptConfig& cfg);

// GPTModel(cfg) right after torch.manual_seed(seed): every parameter drawn in the
// order the constructor creates it (tok_emb, pos_emb, then per block W_query, W_key,
// W_value, out_proj, the two feed-forward layers; LayerNorms draw nothing; out_head).
GptModel build_gpt_ch4(const GptConfig& cfg, uint64_t seed);

}  // namespace attn
