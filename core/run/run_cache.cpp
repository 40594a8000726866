#include "run/run_cache.h"

#include <utility>

namespace attn {

std::vector<std::string> model_run_stages(const LoadedModel& model) {
    if (model.llama) return {"weights", "keys_rotated", "values"};
    return {"weights", "keys", "values"};
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
    void store(ModelRun& run) override { run.cache = std::make_shared<const GptCache>(std::move(cache_)); }

private:
    const GptModel& model_;
    GptCache cache_;
};

}  // namespace

std::unique_ptr<GrowingCache> growing_cache(const ModelRun& run) {
    if (run.model.model && run.cache) return std::make_unique<GrowingGptCache>(run);
    return nullptr;
}

}  // namespace attn
