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
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "model/llama_config.h"
#include "numerics/tensor.h"

namespace attn {

// model.safetensors.index.json's weight_map: tensor name to shard, each shard a plain file
// name in the folder, never a path that leaves it. Throws ModelFileError otherwise.
std::map<std::string, std::string> weight_map(const std::string& index_path);

// One decoder layer, its weights as nn.Linear keeps them and Hugging Face stores them:
// [out, in], used as x @ W^T (F.linear). Read in that order, they are converted without
// a transposed copy, and the products take them transposed at no cost.
struct LlamaLayer {
    RowVector input_norm, post_attention_norm;    // 1 x d
    Matrix W_query, W_key, W_value;               // heads*hd x d, kv*hd x d, kv*hd x d
    std::optional<RowVector> b_query, b_key, b_value;
    std::optional<RowVector> q_norm, k_norm;      // 1 x hd (qwen3)
    Matrix W_out;                                 // d x heads*hd (o_proj)
    Matrix W_gate, W_up, W_down;                  // ff x d, ff x d, d x ff
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
    // The same into `into`'s storage: every layer has the same shapes, so a forward that
    // converts each layer into one LlamaLayer allocates its float weights once (a large
    // matrix is a fresh mapping, faulted in page by page, each time it is allocated).
    void layer(int i, LlamaLayer& into) const;
    // One layer's storage that forwards convert into, kept between them (a fresh 64 MB
    // matrix costs 16 K page faults each time), with the lock a forward holds while it
    // uses it: one layer's floats, never the model's.
    struct Workspace {
        std::mutex lock;
        LlamaLayer layer;
    };
    Workspace& workspace() const { return workspace_; }
    Matrix embeddings(const std::vector<int64_t>& ids) const;  // T x d: embed_tokens rows
    RowVector final_norm() const;
    // h (1 x d) @ head^T: 1 x vocab, straight from the file (row_products.h).
    RowVector logits(const RowVector& h) const;
    // Token `id`'s row of the output head (embed_tokens' when tied): 1 x d, as float32.
    RowVector head_row(int64_t id) const;
    // x (1 x in) @ W^T for the weight `name` ([out, in]) straight from the file: a token
    // through the KV cache multiplies one row by each weight, without a float copy of it.
    RowVector times_transposed(const std::string& name, const RowVector& x) const;
    // A small tensor (a norm's weight, a bias) as float32: 1 x n.
    RowVector vector(const std::string& name, int64_t n) const { return read_vector(name, n); }

  private:
    struct Found;
    const Found& tensor(const std::string& name) const;
    Matrix read(const std::string& name, int64_t rows, int64_t cols) const;
    void read_into(const std::string& name, int64_t rows, int64_t cols, Matrix& out) const;
    void read_rows(const Found& f, int64_t first, int64_t rows, Matrix& out) const;
    RowVector read_vector(const std::string& name, int64_t n) const;
    TensorDtype check_shapes() const;  // the first weight's dtype

    std::string dir_;
    LlamaConfig config_;
    std::string dtype_;
    std::vector<std::unique_ptr<SafetensorsFile>> files_;
    std::map<std::string, std::unique_ptr<Found>> tensors_;
    mutable Workspace workspace_;
};

}  // namespace attn
