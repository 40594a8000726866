// WidgetRects::record, the one part of the window's report that asks ImGui.
#include "state/widget_rects.h"

#include "imgui.h"

namespace app {

void WidgetRects::record(const std::string& name) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    set(name, {a.x, a.y, b.x, b.y});
    if (ImGui::IsItemActive()) set_active(name);
}

}  // namespace app
