#include "model/gpt_model.h"

#include <string>

#include "numerics/gemm.h"

namespace attn {

GptConfig gpt_config_124m() { return GptConfig{}; }

void check_gpt_config(const GptConfig& cfg) {
    if (cfg.vocab_size < 1 || cfg.vocab_size > 1'000'000) throw ConfigError("vocab_size must be between 1 and 1000000");
    if (cfg.context_length < 1 || cfg.context_length > 8192) throw ConfigError("context_length must be between 1 and 8192");
    if (cfg.n_layers < 1 || cfg.n_layers > 96) throw ConfigError("n_layers must be between 1 and 96");
    if (cfg.n_heads < 1 || cfg.emb_dim % cfg.n_heads != 0)
        throw ConfigError("emb_dim (" + std::to_string(cfg.emb_dim) + ") must be divisible by n_heads (" +
                          std::to_string(cfg.n_heads) + ")");
    if (cfg.drop_rate < 0.0 || cfg.drop_rate > 1.0) throw ConfigError("drop_rate must be between 0 and 1");
}

Matrix output_logits(const GptModel& model, const Matrix& final_normed) {
    if (model.out_head) return matmul(final_normed, *model.out_head);  // (T x d) @ (d x vocab)
    return matmul_transposed(final_normed, model.tok_emb);              // (T x d) @ (vocab x d)^T
}

void check_token_id(const GptConfig& cfg, int64_t id) {
    if (id < 0 || id >= cfg.vocab_size)
        throw ConfigError("token id " + std::to_string(id) + " is outside the model's vocabulary (" +
                          std::to_string(cfg.vocab_size) + " tokens)");
}

void check_token_ids(const GptConfig& cfg, const std::vector<int64_t>& ids) {
    if (ids.empty()) throw ConfigError("the text has no tokens");
    if (static_cast<int64_t>(ids.size()) > cfg.context_length)
        throw ConfigError("the text has " + std::to_string(ids.size()) + " tokens; the model's context_length is " +
                          std::to_string(cfg.context_length));
    for (const int64_t id : ids) check_token_id(cfg, id);
}

namespace {

LayerNormWeights fresh_layer_norm(int emb_dim) {  // torch.ones / torch.zeros: no draws
    return {RowVector::Ones(emb_dim), RowVector::Zero(emb_dim)};
}

}  // namespace

AttentionConfig gpt_block_attention(const GptConfig& cfg) {
    AttentionConfig a;
    a.variant = Variant::Mha;
    a.d_out = a.d_out_v = cfg.emb_dim;
    a.heads = cfg.n_heads;
    a.dropout = cfg.drop_rate;
    a.training = false;
    a.qkv_bias = cfg.qkv_bias;
    a.causal = true;
    return a;
}

GptModel build_gpt_ch4(const GptConfig& cfg, uint64_t seed) {
    check_gpt_config(cfg);
    TorchGenerator gen(seed);
    GptModel m;
    m.cfg = cfg;
    m.tok_emb = torch_normal(gen, cfg.vocab_size, cfg.emb_dim);      // nn.Embedding
    m.pos_emb = torch_normal(gen, cfg.context_length, cfg.emb_dim);  // nn.Embedding
    const int d = cfg.emb_dim;
    for (int layer = 0; layer < cfg.n_layers; ++layer) {
        GptBlock b;  // TransformerBlock's order: att, ff (norm1, norm2 draw nothing)
        b.attention = build_attention(d, gpt_block_attention(cfg), gen);
        b.ff_in = torch_linear(gen, d, 4 * d, true);
        b.ff_out = torch_linear(gen, 4 * d, d, true);
        b.norm1 = fresh_layer_norm(d);
        b.norm2 = fresh_layer_norm(d);
        m.blocks.push_back(std::move(b));
    }
    m.final_norm = fresh_layer_norm(d);
    m.out_head = torch_linear(gen, d, cfg.vocab_size, false).weight;
    return m;
}

}  // namespace attn
