#include "views/head_effects_view.h"

#include <algorithm>
#include <cmath>

#include "imgui.h"
#include "views/pipeline_view.h"
#include "views/wrapping.h"

namespace app {

namespace {

// The metric as a sentence names it: "P(' the')", "logit(' the') − logit(' a')".
std::string metric_name(const attn::ModelRun& m, const attn::EffectMetric& metric) {
    if (metric.kind == attn::EffectMetric::Kind::Prob) return "P(" + attn::quoted_token(m.model, metric.id) + ")";
    return "logit(" + attn::quoted_token(m.model, metric.id) + ") - logit(" + attn::quoted_token(m.model, metric.minus_id) +
           ")";
}

}  // namespace

std::optional<std::string> draw_head_effects(const attn::ModelRun& m, const std::optional<std::string>& asked,
                                             bool patching, const DrawContext& ctx, HeatmapRegistry& shown,
                                             WidgetRects& widgets) {
    std::optional<std::string> changed;
    const std::vector<attn::TokenProbability>& top_of = m.baseline_next_tokens.empty() ? m.next_tokens : m.baseline_next_tokens;
    if (top_of.empty()) return changed;
    const int64_t top = top_of.front().id;
    bool on = asked.has_value();
    const std::string label = "Which heads matter: the change of P(" + attn::quoted_token(m.model, top) + ") with each head " +
                              (patching ? "alone patched from the other text" : "alone switched off") + "###head_effects";
    if (ImGui::Checkbox(label.c_str(), &on)) changed = on ? "prob:" + std::to_string(top) : std::string();
    widgets.record("head_effects");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Activation patching, one head at a time: the run is made again with that head's output %s "
                          "and the metric read after the position whose next tokens are shown. Each head reruns its "
                          "layer's end and the layers after it.",
                          patching ? "taken from the other text's run" : "set to zero");
    if (!asked || !m.effect_metric || m.head_effects.empty()) return changed;
    const attn::EffectMetric& metric = *m.effect_metric;
    const int layers = static_cast<int>(m.head_effects.size()), heads = static_cast<int>(m.head_effects[0].size());
    attn::Matrix effects(layers, heads);  // layers x heads
    double largest = 0.0;
    int best_l = 0, best_h = 0;
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h) {
            const double e = m.head_effects[static_cast<size_t>(l)][static_cast<size_t>(h)];
            effects(l, h) = static_cast<float>(e);
            if (std::abs(e) > largest) largest = std::abs(e), best_l = l, best_h = h;
        }
    const std::string name = metric_name(m, metric);
    text_wrapped("%s after position %lld is %.4f with every head as it is; each cell is its change with that head %s. "
                 "The largest: head %s, %+.4f.",
                 name.c_str(), static_cast<long long>(metric.position), m.effect_before,
                 m.effects_patched ? "patched from the other text" : "switched off",
                 attn::layer_head(best_l, best_h).c_str(), m.head_effects[static_cast<size_t>(best_l)][static_cast<size_t>(best_h)]);
    static std::vector<std::string> row_labels, col_labels;
    row_labels.clear();
    col_labels.clear();
    for (int l = 0; l < layers; ++l) row_labels.push_back("layer " + std::to_string(l));
    for (int h = 0; h < heads; ++h) col_labels.push_back(std::to_string(h));
    const float bound = largest > 0.0 ? static_cast<float>(largest) : 1.0f;
    MatrixRequest req;
    req.key = "head_effects";
    req.values = &effects;
    req.scale = ColorScale{ColorMode::Diverging, -bound, bound};
    req.row_labels = &row_labels;
    req.col_labels = &col_labels;
    req.max_size = ImVec2(std::min(ImGui::GetContentRegionAvail().x, 56.0f * ctx.ui_scale * static_cast<float>(heads)),
                          40.0f * ctx.ui_scale * static_cast<float>(layers));
    req.max_cell = 56.0f * ctx.ui_scale;
    req.export_name = "head_effects";
    const MatrixPlacement p = draw_matrix(req, ctx);
    if (p.hovered && p.row >= 0 && p.col >= 0) {
        const double e = m.head_effects[static_cast<size_t>(p.row)][static_cast<size_t>(p.col)];
        ImGui::SetTooltip("head %s %s: %s %.4f -> %.4f (%+.4f)", attn::layer_head(p.row, p.col).c_str(),
                          m.effects_patched ? "patched" : "switched off", name.c_str(), m.effect_before,
                          m.effect_before + e, e);
    }
    record(shown, req.key, p, effects);
    draw_legend(req.scale, 300.0f * ctx.ui_scale, ctx);
    return changed;
}

}  // namespace app
