#include "panels/setting_widgets.h"

#include <string>

#include "views/control_widgets.h"
#include "imgui_internal.h"  // HoveredIdTimer: a tooltip waits, as a desktop's does

namespace app {

namespace {

using attn::SettingValue;

void tooltip(const attn::SettingRow& row) {
    constexpr float kDelay = 0.6f;
    if (*row.app.tooltip && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled) &&
        ImGui::GetCurrentContext()->HoveredIdTimer > kDelay)
        ImGui::SetTooltip("%s", row.app.tooltip);
}

int64_t whole(const SettingValue& v) { return std::holds_alternative<int64_t>(v) ? std::get<int64_t>(v) : 0; }

bool text_box(const attn::SettingRow& row, attn::Settings& c) {
    const SettingValue now = row.get(c);
    std::string text = std::holds_alternative<std::string>(now) ? std::get<std::string>(now) : "";
    caption(row.app.label);
    ImGui::SetNextItemWidth(-1.0f);
    if (!input_text((std::string("##") + row.key).c_str(), text, row.app.unset_label)) return false;
    const bool unset = row.app.unset == attn::Unset::Empty && text.empty();
    row.set(c, unset ? SettingValue() : SettingValue(text));
    return true;
}

bool slider(const attn::SettingRow& row, attn::Settings& c, WidgetRects& rects) {
    const attn::AppControl& a = row.app;
    SettingValue now = row.get(c);
    const bool unset = std::holds_alternative<std::monostate>(now);
    if (unset && a.unset == attn::Unset::Checkbox) now = attn::fallback_value(a, c);
    int64_t value = whole(now);  // Unset::Zero: 0
    const ImGuiSliderFlags flags = a.control == attn::Control::LogSlider ? ImGuiSliderFlags_Logarithmic : 0;
    const char* format = a.unset == attn::Unset::Zero && value == 0 ? a.unset_label : "%lld";
    caption(a.label);
    ImGui::SetNextItemWidth(-1.0f);
    const bool changed = ImGui::SliderScalar((std::string("##") + row.key).c_str(), ImGuiDataType_S64, &value,
                                             &a.ui_lo, &a.ui_hi, format, flags);
    rects.record(row.key);
    tooltip(row);
    // ctrl+click types any number: kept, so that a value out of the row's range is
    // explained by the engine (and the last good view stays), not silently dropped.
    if (changed) row.set(c, a.unset == attn::Unset::Zero && value == 0 ? SettingValue() : SettingValue(value));
    if (a.unset == attn::Unset::Checkbox) {
        bool follows = std::holds_alternative<std::monostate>(row.get(c));
        const bool toggled = checkbox(a.unset_label, (std::string(row.key) + "_follows").c_str(), follows, rects);
        if (toggled) row.set(c, follows ? SettingValue() : attn::fallback_value(a, c));
        return changed || toggled;
    }
    return changed;
}

bool real_slider(const attn::SettingRow& row, attn::Settings& c, WidgetRects& rects) {
    double value = std::get<double>(row.get(c));
    // The slider's range; ctrl+click types any value of the row's (a temperature up to 100).
    const double lo = static_cast<double>(row.app.ui_lo), hi = static_cast<double>(row.app.ui_hi);
    caption(row.app.label);
    ImGui::SetNextItemWidth(-1.0f);
    const bool changed =
        ImGui::SliderScalar((std::string("##") + row.key).c_str(), ImGuiDataType_Double, &value, &lo, &hi, "%.2f");
    rects.record(row.key);
    tooltip(row);
    if (changed) row.set(c, value);  // out of range: explained by the engine, as above
    return changed;
}

bool check(const attn::SettingRow& row, attn::Settings& c, WidgetRects& rects) {
    bool on = std::get<bool>(row.get(c));
    const bool changed = checkbox(row.app.label, row.key, on, rects);
    tooltip(row);
    if (changed) row.set(c, on);
    return changed;
}

}  // namespace

bool draw_setting(const attn::SettingRow& row, attn::Settings& c, WidgetRects& rects) {
    if (c.model && !row.with_model) return false;  // the model's own sizes and weights are used
    const bool variant_takes_it = attn::applies(row, c.attention.variant);
    if (!variant_takes_it && row.app.hide_inapplicable) return false;
    ImGui::BeginDisabled(!attn::applies(row, c));
    bool changed = false;
    switch (row.app.control) {
    case attn::Control::TextBox:
        changed = text_box(row, c);
        rects.record(row.key);
        tooltip(row);
        break;
    case attn::Control::Slider:
    case attn::Control::LogSlider: changed = slider(row, c, rects); break;
    case attn::Control::RealSlider: changed = real_slider(row, c, rects); break;
    case attn::Control::Checkbox: changed = check(row, c, rects); break;
    case attn::Control::None:
    case attn::Control::Own: break;
    }
    ImGui::EndDisabled();
    return changed;
}

}  // namespace app
