#include "run/run_cache.h"

#include <cstdio>
#include <utility>

#include "attention/cache_sizes.h"  // format_bytes

namespace attn {

std::vector<std::string> model_run_stages(const LoadedModel& model) {
    if (model.llama) return {"weights", "keys_rotated", "values"};
    return {"weights", "keys", "values"};
}

RunCacheSize run_cache_size(const ModelRun& run) {
    const ModelShape shape = model_shape(run.model);
    return {shape.layers, shape.kv_heads, shape.heads, shape.head_dim, static_cast<int64_t>(run.tokens.ids.size())};
}

std::string run_cache_line(const ModelRun& run) {
    const RunCacheSize c = run_cache_size(run);
    const bool grouped = c.kv_heads < c.heads;
    const auto count = [](int64_t n, const char* one, const char* many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    std::string line = "KV cache: " + count(c.layers, "layer", "layers") + " × " +
                       (grouped ? count(c.kv_heads, "key/value head", "key/value heads") : count(c.heads, "head", "heads")) +
                       " × " + std::to_string(c.head_dim) + " dims × " + count(c.tokens, "token", "tokens") +
                       " × keys and values = " + format_bytes(static_cast<double>(c.bytes())) + " (float32)";
    if (!grouped) return line;
    char times[32];
    std::snprintf(times, sizeof times, "%g×", static_cast<double>(c.heads) / c.kv_heads);
    return line + "; a key/value head for each of the " + std::to_string(c.heads) + " query heads would need " +
           format_bytes(static_cast<double>(c.per_query_head_bytes())) + ", " + times + " as much";
}

namespace {

// GPT-2's cache (kv_cache.h): each layer's heads side by side, head h's keys and values in
// columns h * head_dim on, context_length rows of which the first T are filled.
class GrowingGptCache : public GrowingCache {
public:
    explicit GrowingGptCache(const ModelRun& run) : model_(*run.model.model), cache_(*run.cache) {}
    TokenStep append(int64_t id) override { return append_token(model_, cache_, id); }
    void add_keys_values(size_t layer, size_t head, HeadTrace& out) const override {
        const auto T = static_cast<Eigen::Index>(cache_.ids.size());
        const auto hd = static_cast<Eigen::Index>(model_.cfg.emb_dim / model_.cfg.n_heads);
        const auto col = static_cast<Eigen::Index>(head) * hd;
        out.add("keys", cache_.keys[layer].block(0, col, T, hd), Axis::Tokens);
        out.add("values", cache_.values[layer].block(0, col, T, hd), Axis::Tokens);
    }
    void truncate(size_t tokens) override { cache_.ids.resize(tokens); }  // its rows past them are written again
    void store(ModelRun& run) override { run.cache = std::make_shared<const GptCache>(std::move(cache_)); }

private:
    const GptModel& model_;
    GptCache cache_;
};

// A Llama's cache (llama_cache.h): each layer's key/value heads side by side, exactly T
// rows; query head h reads key/value head h / group_size (repeat_interleave).
class GrowingLlamaCache : public GrowingCache {
public:
    explicit GrowingLlamaCache(const ModelRun& run) : model_(*run.model.llama), cache_(*run.llama_cache) {}
    TokenStep append(int64_t id) override { return llama_append_token(model_, cache_, id); }
    void add_keys_values(size_t layer, size_t head, HeadTrace& out) const override {
        const LlamaConfig& c = model_.config();
        const Eigen::Index col = static_cast<Eigen::Index>(head) / c.group_size() * c.head_dim;
        out.add("keys_rotated", cache_.keys[layer].middleCols(col, c.head_dim), Axis::Tokens);
        out.add("values", cache_.values[layer].middleCols(col, c.head_dim), Axis::Tokens);
    }
    void truncate(size_t tokens) override {
        cache_.ids.resize(tokens);
        for (Matrix& m : cache_.keys) m.conservativeResize(static_cast<Eigen::Index>(tokens), m.cols());
        for (Matrix& m : cache_.values) m.conservativeResize(static_cast<Eigen::Index>(tokens), m.cols());
    }
    void store(ModelRun& run) override { run.llama_cache = std::make_shared<const LlamaCache>(std::move(cache_)); }

private:
    const LlamaCheckpoint& model_;
    LlamaCache cache_;
};

}  // namespace

std::unique_ptr<GrowingCache> growing_cache(const ModelRun& run) {
    if (run.model.llama && run.llama_cache) return std::make_unique<GrowingLlamaCache>(run);
    if (run.model.model && run.cache) return std::make_unique<GrowingGptCache>(run);
    return nullptr;
}

}  // namespace attn
