#pragma once
// A Llama-family checkpoint as Hugging Face's files hold it: a folder with config.json
// (llama_config.h) and model.safetensors, or shards that model.safetensors.index.json
// names. The files stay memory-mapped; a layer's weights are converted to float32 when
// its forward runs and dropped after it, the token embedding is read a row per token,
// and the output head a block of rows at a time: a 2.5 GB BF16 model never has a second
// float copy of itself in memory.
//   model.embed_tokens.weight [V, d]       model.norm.weight [d]     lm_head.weight [V, d] (untied)
//   model.layers.N.input_layernorm.weight [d], .post_attention_layernorm.weight [d]
//   model.layers.N.self_attn.{q,k,v,o}_proj.weight [out, in], {q,k,v}_proj.bias (qwen2)
//   model.layers.N.self_attn.{q,k}_norm.weight [head_dim] (qwen3)
//   model.layers.N.mlp.{gate,up,down}_proj.weight [out, in]
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/llama_config.h"
#include "numerics/tensor.h"

namespace attn {

// One decoder layer in the x @ W orientation (Hugging Face stores [out, in]).
struct LlamaLayer {
    RowVector input_norm, post_attention_norm;    // 1 x d
    Matrix W_query, W_key, W_value;               // d x heads*hd, d x kv*hd, d x kv*hd
    std::optional<RowVector> b_query, b_key, b_value;
    std::optional<RowVector> q_norm, k_norm;      // 1 x hd (qwen3)
    Matrix W_out;                                 // heads*hd x d (o_proj)
    Matrix W_gate, W_up, W_down;                  // d x ff, d x ff, ff x d
};

class LlamaCheckpoint {
  public:
    // Opens the folder `dir`. Throws ModelFileError "PATH: REASON" for a config this
    // forward does not compute, a missing or misshapen tensor, an index naming a file
    // outside the folder, a dtype other than F32, F16 or BF16.
    explicit LlamaCheckpoint(const std::string& dir);
    ~LlamaCheckpoint();

    const LlamaConfig& config() const { return config_; }
    const std::string& dir() const { return dir_; }
    std::string dtype() const { return dtype_; }  // of the weights: "float32", "float16", "bfloat16"

    LlamaLayer layer(int i) const;  // converted now
    Matrix embeddings(const std::vector<int64_t>& ids) const;  // T x d: embed_tokens rows
    RowVector final_norm() const;
    // h (1 x d) @ head^T: 1 x vocab, the head converted a block of rows at a time.
    RowVector logits(const RowVector& h) const;

  private:
    struct Found;
    const Found& tensor(const std::string& name) const;
    Matrix read(const std::string& name, int64_t rows, int64_t cols) const;
    Matrix read_rows(const Found& f, int64_t first, int64_t rows) const;
    RowVector read_vector(const std::string& name, int64_t n) const;
    TensorDtype check_shapes() const;  // the first weight's dtype

    std::string dir_;
    LlamaConfig config_;
    std::string dtype_;
    std::vector<std::unique_ptr<SafetensorsFile>> files_;
    std::map<std::string, std::unique_ptr<Found>> tensors_;
};

}  // namespace attn
