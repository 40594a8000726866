#include "views/kv_cache_view.h"

#include <algorithm>
#include <cstdio>

#include "attention/variants/weight_split.h"
#include "graphics/ui_colors.h"
#include "views/control_widgets.h"
#include "views/stage_labels.h"
#include "views/stepper_parts.h"
#include "views/wrapping.h"

namespace app {

namespace {

// The run's tokens at positions [first, first + count), as the cache's row labels.
std::vector<std::string> token_labels(const attn::Run& run, long first, long count) {
    std::vector<std::string> out;
    for (long i = first; i < first + count && i < static_cast<long>(run.tokens.tokens.size()); ++i)
        out.push_back(visible_token(run.tokens.tokens[static_cast<size_t>(i)]));
    return out;
}

}  // namespace

void KvCacheView::update(const attn::Run& run, const attn::Settings& settings, uint64_t run_version, int head) {
    if (run_version != version_) {
        version_ = run_version;
        computed_step_ = computed_head_ = -1;
        module_.reset();
        error_.clear();
        max_difference_ = -1.0f;
        try {
            if (!attn::has_kv_cache(settings.attention.variant))
                throw attn::ConfigError(attn::variant_name(settings.attention.variant) +
                                        " is a chapter 3 module: the book gives a KV cache to " +
                                        attn::variants_with(&attn::VariantInfo::split) + " (choose one as the variant)");
            module_ = std::make_unique<attn::AttentionModule>(attn::build_attention(settings.d_in, settings.attention));
        } catch (const std::exception& e) {
            error_ = e.what();
        }
    }
    const attn::Matrix& x = run.trace.model.at("inputs");
    step_ = std::clamp(step_, 0, static_cast<int>(x.rows()) - 1);
    if (!module_ || (step_ == computed_step_ && head == computed_head_)) return;
    computed_step_ = step_;
    computed_head_ = head;
    try {
        shown_ = attn::kv_cache_step(*module_, x, step_, head);
        // Dropout is off in generation: the full forward's row is comparable only without it.
        const bool dropped = settings.attention.training && settings.attention.dropout > 0.0;
        max_difference_ = dropped ? -1.0f
                                  : (shown_->output - run.trace.output[0].middleRows(step_, 1)).cwiseAbs().maxCoeff();
    } catch (const std::exception& e) {
        shown_.reset();
        error_ = e.what();
    }
}

void KvCacheView::draw(const attn::Run& run, const attn::Settings& settings, uint64_t run_version, int head,
                       const DrawContext& ctx, FrameReport& report) {
    update(run, settings, run_version, head);
    StepperReport& r = report.kv_cache;
    r.shown = true;
    r.steps = static_cast<long>(run.tokens.tokens.size());
    r.error = error_;
    ImGui::PushFont(ctx.fonts.heading);
    text_wrapped("The KV cache, step by step (the book's ch04/03_kv-cache)");
    ImGui::PopFont();
    text_wrapped("Generation feeds one token at a time. A module with a KV cache projects only the new token, "
                 "appends what it caches, and attends with the new query over everything cached: no earlier "
                 "key or value is computed again. Dropout is off, as in model.eval().");
    if (!error_.empty()) {
        ImGui::TextColored(ui_color(ui_colors().error), "%s", error_.c_str());
    } else if (shown_) {
        int step = step_ + 1;
        if (step_slider("kv_step", step, 1, static_cast<int>(r.steps), "token %d", ctx, report.widgets)) step_ = step - 1;
        draw_step(run, ctx, report);
    }
    ImGui::Separator();
    draw_model_sizes(ctx, report.widgets);
}

void KvCacheView::draw_step(const attn::Run& run, const DrawContext& ctx, FrameReport& report) {
    const attn::KvCacheStep& s = *shown_;
    StepperReport& r = report.kv_cache;
    r.step = s.step + 1;
    r.cached = s.cached;
    r.cache_bytes = s.cache_bytes;
    r.max_difference = max_difference_;
    const attn::AttentionConfig& cfg = module_->cfg;
    const std::string token = visible_token(run.tokens.tokens[static_cast<size_t>(s.step)]);
    text_wrapped("Step %ld: “%s” (position %ld) is fed. The cache holds tokens %ld–%ld (%ld of them): %s; caching "
                 "every head's keys and values would take %s.",
                 s.step + 1, token.c_str(), s.step, s.first_cached + 1, s.step + 1, s.cached,
                 attn::format_bytes(static_cast<double>(s.cache_bytes)).c_str(),
                 attn::format_bytes(static_cast<double>(s.full_cache_bytes)).c_str());
    if (attn::window_of(cfg) > 0 && s.first_cached > 0)
        text_wrapped("The window holds W = %ld keys: token %ld's key and value were dropped.", attn::window_of(cfg),
                     s.first_cached);
    if (attn::variant_info(cfg.variant).kv_groups)
        text_wrapped("Head %d reads key/value group %d; the cache keeps %d groups, not %d heads.", s.head + 1,
                     s.group + 1, attn::kv_groups_of(cfg), cfg.heads);
    if (attn::variant_info(cfg.variant).latent)
        text_wrapped("MLA caches only the %d-wide latent per token; every step up-projects the cached latents "
                     "to keys and values (W_UK, W_UV).", attn::latent_dim_of(cfg));

    const std::vector<std::string> rows = token_labels(run, s.first_cached, s.cached);
    const std::vector<std::string> new_row = {token};
    const ColorScale probability{ColorMode::Sequential, 0.0f, 1.0f};
    std::vector<TitledMatrix> shown = {
        {"new query (head " + std::to_string(s.head + 1) + ")", "kv/query", &s.query, signed_scale(s.query), &new_row},
        {"cached keys", "kv/keys", &s.keys, signed_scale(s.keys), &rows},
        {"cached values", "kv/values", &s.values, signed_scale(s.values), &rows},
    };
    if (s.latents.size()) shown.push_back({"cached latents (MLA)", "kv/latents", &s.latents, signed_scale(s.latents), &rows});
    shown.push_back({"weights", "kv/weights", &s.weights, probability, &new_row, &rows});
    shown.push_back({"context", "kv/context", &s.context, signed_scale(s.context), &new_row});
    draw_titled_matrices(shown, 220.0f * ctx.ui_scale, ctx, report.heatmaps);
    if (max_difference_ >= 0.0f)
        text_wrapped("Output row %ld from the cache vs the full forward's: largest difference %.3g (float rounding: "
                     "the same sums in another order).",
                     s.step + 1, static_cast<double>(max_difference_));
    else
        text_wrapped("Dropout is on in these settings, so the full forward's row differs by its dropout; set the "
                     "dropout rate to 0 or untick training mode to compare.");
}

void KvCacheView::draw_model_sizes(const DrawContext& ctx, WidgetRects& rects) {
    ImGui::PushFont(ctx.fonts.heading);
    text_wrapped("A whole model's KV cache, per variant");
    ImGui::PopFont();
    ImGui::SetNextItemWidth(280.0f * ctx.ui_scale);
    if (ImGui::BeginCombo("model size", size_.name)) {
        for (const attn::CacheModelSize& p : attn::cache_model_presets())
            if (ImGui::Selectable(p.name, std::string(p.name) == size_.name)) size_ = p;
        ImGui::EndCombo();
    }
    rects.record("kv_model_size");
    const auto field = [&](const char* label, const char* key, auto& value, long lo, long hi) {
        long v = static_cast<long>(value);
        ImGui::SetNextItemWidth(160.0f * ctx.ui_scale);
        if (ImGui::InputScalar(label, ImGuiDataType_S64, &v)) {
            value = static_cast<std::remove_reference_t<decltype(value)>>(std::clamp(v, lo, hi));
            size_.name = "custom";
        }
        rects.record(key);
    };
    field("layers", "kv_layers", size_.layers, 1, 1000);
    ImGui::SameLine();
    field("d_model", "kv_d_model", size_.d_model, 1, 1 << 17);
    field("heads", "kv_heads", size_.heads, 1, 1024);
    ImGui::SameLine();
    field("kv groups", "kv_groups_size", size_.kv_groups, 1, 1024);
    field("window", "kv_window", size_.window, 1, 1L << 24);
    ImGui::SameLine();
    field("latent", "kv_latent", size_.latent, 1, 1 << 16);
    field("context tokens", "kv_tokens", size_.tokens, 1, 1L << 24);
    ImGui::SameLine();
    field("batch", "kv_batch", size_.batch, 1, 4096);
    field("bytes per value", "kv_bytes", size_.bytes, 1, 8);
    std::string error;
    const std::vector<attn::CacheSizeRow> rows = attn::kv_cache_table(size_, error);
    if (!error.empty()) {
        ImGui::TextColored(ui_color(ui_colors().error), "%s", error.c_str());
        return;
    }
    if (ImGui::BeginTable("kv_sizes", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("variant");
        ImGui::TableSetupColumn("KV cache");
        ImGui::TableSetupColumn("of MHA's");
        ImGui::TableHeadersRow();
        for (const attn::CacheSizeRow& row : rows) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.variant.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(attn::format_bytes(row.bytes).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.3g×", row.vs_mha);
        }
        ImGui::EndTable();
    }
}

}  // namespace app
