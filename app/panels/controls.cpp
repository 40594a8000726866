#include "panels/controls.h"

#include <algorithm>

#include "panels/control_widgets.h"
#include "panels/setting_widgets.h"
#include "panels/tokenizer_controls.h"
#include "views/wrapping.h"

namespace app {

namespace {

std::string variant_label(const attn::VariantInfo& v) {
    return *v.section ? std::string(v.section) + "  " + v.label : v.label;
}

// The variant table as a list; each entry's settings follow from its row.
void draw_variant_list(const attn::SettingRow& row, ControlValues& c, WidgetRects& rects) {
    caption(row.app.label);
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::BeginCombo("##variant", variant_label(attn::variant_info(c.attention.variant)).c_str())) {
        // The open list, below the combo or, without room there, above it: tests pick from it.
        const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
        rects.set("variant_open", {at.x, at.y, at.x + size.x, at.y + size.y});
        for (const attn::VariantInfo& v : attn::variants())
            if (ImGui::Selectable(variant_label(v).c_str(), v.id == c.attention.variant)) c.attention.variant = v.id;
        ImGui::EndCombo();
    }
    rects.record("variant");
}

}  // namespace

void draw_controls(LiveRun& live, float& ui_scale, const Fonts& fonts, WidgetRects& rects) {
    ControlValues& c = live.controls;
    ImGui::PushFont(fonts.heading);
    ImGui::TextUnformatted("attnscope");
    ImGui::PopFont();

    // The settings table, in its order: a setting with a control is one row there.
    for (const attn::SettingRow& row : attn::setting_rows()) {
        const std::string key = row.key;
        if (key == "tokenizer") draw_tokenizer_controls(c, live.corpus, rects);  // and the corpus field
        else if (key == "variant") draw_variant_list(row, c, rects);
        else draw_setting(row, c, rects);
    }

    if (!live.error().empty()) {
        ImGui::Spacing();
        ImGui::PushStyleColor(ImGuiCol_Text, ui_color(ui_colors().error));
        text_wrapped("Cannot compute: %s", live.error().c_str());
        ImGui::PopStyleColor();
        text_wrapped("The view shows the last settings that worked.");
    }

    ImGui::Separator();
    static float dragged_scale = 0.0f;  // what the slider shows while it is dragged
    if (!ImGui::IsAnyItemActive()) dragged_scale = ui_scale;
    caption("UI scale (projector)");
    ImGui::SetNextItemWidth(-1.0f);
    ImGui::SliderFloat("##ui_scale", &dragged_scale, 1.0f, 3.0f, "%.2f×");
    rects.record("ui_scale");
    if (ImGui::IsItemDeactivatedAfterEdit()) ui_scale = std::clamp(dragged_scale, 1.0f, 3.0f);
}

}  // namespace app
