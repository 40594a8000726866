#pragma once
// The controls of the left panel and of the views that have their own (the data
// sampler's, the KV cache's, the tiled softmax's), each recording its rectangle under a
// name for the state file: captions above full-width controls, readable at any width.
#include <string>

#include "imgui.h"
#include "graphics/ui_colors.h"  // the panel writes errors in the theme's colour
#include "state/widget_rects.h"

namespace app {

// ImGui's InputText on a std::string that grows as the user types (a 1 MB paste included).
bool input_text(const char* id, std::string& s, const char* hint, ImGuiInputTextFlags flags = 0);
void caption(const char* text);
bool slider_int(const char* label, const char* name, int& v, int lo, int hi, WidgetRects& rects,
                ImGuiSliderFlags flags = 0, const char* format = "%d");
bool checkbox(const char* label, const char* name, bool& v, WidgetRects& rects);

}  // namespace app
