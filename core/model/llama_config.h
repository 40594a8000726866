#pragma once
// The Llama family's config.json as Hugging Face writes it: Llama 3.x (rope_scaling
// "llama3"), SmolLM2 (Llama-shaped, tied head), Qwen2.5 (bias on q, k and v) and Qwen3
// (an RMSNorm on each head's queries and keys). What the forward reads, checked; what it
// would compute differently (another activation, experts, a sliding window, another
// rope_scaling) is refused in one line naming the key.
#include <cstdint>
#include <optional>
#include <string>

#include "attention/rope.h"
#include "model/safetensors.h"  // ModelFileError

namespace attn {

enum class LlamaKind { Llama, Qwen2, Qwen3 };

struct LlamaConfig {
    LlamaKind kind = LlamaKind::Llama;
    std::string model_type;  // "llama", "qwen2", "qwen3"
    int hidden_size = 0;
    int heads = 0;       // num_attention_heads: the query heads
    int kv_heads = 0;    // num_key_value_heads: query head h uses key/value head h / (heads / kv_heads)
    int head_dim = 0;    // head_dim, else hidden_size / heads
    int intermediate_size = 0;
    int layers = 0;      // num_hidden_layers
    int64_t vocab_size = 0;
    int64_t max_positions = 0;  // max_position_embeddings
    double rms_norm_eps = 1e-6;
    double rope_theta = 10000.0;
    std::optional<Llama3RopeScaling> rope_scaling;
    bool tied_head = false;      // tie_word_embeddings: logits = x @ embed_tokens^T
    bool qkv_bias = false;       // qwen2 always; llama and qwen3 with attention_bias
    bool qk_norm = false;        // qwen3: q_norm and k_norm over head_dim
    int group_size() const { return heads / kv_heads; }
};

// Parses config.json's text. `where` names the file in messages ("DIR/config.json").
// Throws ModelFileError "WHERE: REASON" for a model this forward does not compute.
LlamaConfig parse_llama_config(const std::string& json_text, const std::string& where);

// Whether config.json's text names a Llama-family model_type (a quick look, no checks).
bool is_llama_family_config(const std::string& json_text);

}  // namespace attn
