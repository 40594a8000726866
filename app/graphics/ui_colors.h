#pragma once
// The current theme's interface colours (colormap.h UiColors) in Dear ImGui's types.
// Draw code writes ui_color(ui_colors().error), never a colour literal of its own.
#include "imgui.h"

#include "state/colormap.h"

namespace app {

inline ImVec4 ui_color(const Rgba& c) { return ImVec4(c[0], c[1], c[2], c[3]); }
inline ImU32 ui_color32(const Rgba& c) { return ImGui::ColorConvertFloat4ToU32(ui_color(c)); }

// Makes `theme` the current one: ui_colors() and ImGui's TextDisabled (the hint grey)
// follow it. Called every frame: a font rescale rebuilds the style (fonts.cpp).
inline void apply_ui_theme(const ColorTheme& theme) {
    set_current_theme(theme);
    ImGui::GetStyle().Colors[ImGuiCol_TextDisabled] = ui_color(theme.ui.hint);
}

}  // namespace app
