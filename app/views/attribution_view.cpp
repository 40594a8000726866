#include "views/attribution_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "graphics/ui_colors.h"
#include "views/wrapping.h"

namespace app {

namespace {

// The bars shown; the rest are summed in one line.
constexpr size_t kShownParts = 16;

// One part: its name, a bar from the zero line (right: adds to the logit, left: takes
// away) on the diverging map's colour, its value.
void draw_part(const std::string& label, double value, double largest, float label_w, float bar_w,
               const DrawContext& ctx) {
    ImGui::TextUnformatted(label.c_str());
    ImGui::SameLine(label_w);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight(), half = 0.5f * bar_w, mid = at.x + half;
    const float len = largest > 0.0 ? static_cast<float>(std::abs(value) / largest) * half : 0.0f;
    const Rgb rgb = ctx.painter.color_of(ColorScale{ColorMode::Diverging, -1.0f, 1.0f},
                                         largest > 0.0 ? static_cast<float>(value / largest) : 0.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float x0 = value >= 0.0 ? mid : mid - len, x1 = value >= 0.0 ? mid + len : mid;
    dl->AddRectFilled(ImVec2(x0, at.y + 1.0f), ImVec2(x1, at.y + h - 1.0f),
                      ImGui::GetColorU32(ImVec4(rgb[0], rgb[1], rgb[2], 1.0f)));
    dl->AddLine(ImVec2(mid, at.y), ImVec2(mid, at.y + h), ImGui::GetColorU32(ImGuiCol_Text));
    ImGui::Dummy(ImVec2(bar_w, h));
    ImGui::SameLine();
    ImGui::Text("%+.3f", value);
}

// A part's name as the view shows it: "head 1.3", "MLP 2", "token embedding", ...
std::string part_label(const std::string& name) {
    if (name == "embed") return "token embedding";
    if (name == "pos_embed") return "position embedding";
    if (name == "norm_bias") return "final norm's bias";
    if (name.rfind("mlp ", 0) == 0) return "MLP " + name.substr(4);
    if (name.rfind("attn_bias ", 0) == 0) return "attention bias " + name.substr(10);
    return "head " + name;
}

}  // namespace

std::optional<std::string> draw_attribution(const attn::ModelRun& m, const std::optional<std::string>& asked,
                                            const DrawContext& ctx, WidgetRects& widgets) {
    std::optional<std::string> changed;
    if (m.next_tokens.empty()) return changed;
    const int64_t top = m.next_tokens.front().id;
    bool on = asked.has_value();
    // "###": one widget while the top token, and so its label, changes.
    const std::string label =
        "Split the logit of " + attn::quoted_token(m.model, top) + " into what each head and MLP adds###attribute";
    if (ImGui::Checkbox(label.c_str(), &on)) changed = on ? std::to_string(top) : std::string();
    widgets.record("attribute");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Direct logit attribution: each part of the residual stream after the last layer (the "
                          "embeddings, every head's output, each MLP's) through the final norm, its scale held at the "
                          "whole stream's, and the output head's row of the token. The parts add up to the logit.");
    if (!asked || !m.attribution) return changed;
    const attn::Attribution& a = *m.attribution;
    if (a.id != top && !a.minus_id) {  // the text changed: the bars stay the token's the user asked for
        ImGui::SameLine();
        const std::string instead = "Split the logit of " + attn::quoted_token(m.model, top) + " instead";
        if (ImGui::SmallButton(instead.c_str())) changed = std::to_string(top);
        widgets.record("attribute_top");
    }
    text_wrapped("The logit of %s%s after position %lld: %.3f.", attn::quoted_token(m.model, a.id).c_str(),
                 a.minus_id ? (" minus that of " + attn::quoted_token(m.model, *a.minus_id)).c_str() : "",
                 static_cast<long long>(a.position), a.logit);
    text_wrapped_disabled("Each part's share, largest first: right of the line it raises the logit, left it lowers it.");
    std::vector<attn::LogitComponent> parts = a.components;
    std::stable_sort(parts.begin(), parts.end(), [](const attn::LogitComponent& x, const attn::LogitComponent& y) {
        return std::abs(x.value) > std::abs(y.value);
    });
    const double largest = parts.empty() ? 0.0 : std::abs(parts.front().value);
    const float label_w = ImGui::CalcTextSize("position embedding  ").x;
    const float bar_w = std::min(ImGui::GetContentRegionAvail().x - label_w - ImGui::CalcTextSize("+000.000  ").x,
                                 420.0f * ctx.ui_scale);
    for (size_t i = 0; i < parts.size() && i < kShownParts; ++i)
        draw_part(part_label(parts[i].name), parts[i].value, largest, label_w, std::max(bar_w, 40.0f), ctx);
    if (parts.size() > kShownParts) {
        double rest = 0.0;
        for (size_t i = kShownParts; i < parts.size(); ++i) rest += parts[i].value;
        ImGui::TextDisabled("the other %zu parts add %+.3f", parts.size() - kShownParts, rest);
    }
    widgets.record("attribution_bars");
    return changed;
}

}  // namespace app
