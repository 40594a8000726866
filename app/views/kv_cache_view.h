#pragma once
// The KV cache tab (the book's ch04/03_kv-cache): a stepper that feeds the text one
// token at a time, as generation does, and shows the new query, the cache growing (keys
// and values appended; for a sliding window the oldest dropped, for GQA only the
// groups, for MLA only the latents), the new token's weights and context, and that the
// output row equals the full forward's. Below it, what a whole model's cache needs per
// variant for a model size the user picks (attention/cache_sizes.h).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "attention/cache_sizes.h"
#include "attention/kv_cache_walk.h"
#include "run/pipeline.h"
#include "state/frame_report.h"
#include "views/matrix_widget.h"

namespace app {

class KvCacheView {
public:
    void draw(const attn::Run& run, const attn::Settings& settings, uint64_t run_version, int head,
              const DrawContext& ctx, FrameReport& report);

private:
    void update(const attn::Run& run, const attn::Settings& settings, uint64_t run_version, int head);
    void draw_step(const attn::Run& run, const DrawContext& ctx, FrameReport& report);
    void draw_model_sizes(const DrawContext& ctx, WidgetRects& rects);

    int step_ = 0;  // 0-based; kept across runs, clamped to the text
    uint64_t version_ = UINT64_MAX;
    int computed_step_ = -1, computed_head_ = -1;
    std::unique_ptr<attn::AttentionModule> module_;  // rebuilt from the run's settings once per run
    std::optional<attn::KvCacheStep> shown_;
    float max_difference_ = -1.0f;
    std::string error_;
    attn::CacheModelSize size_ = attn::cache_model_presets()[0];
};

}  // namespace app
