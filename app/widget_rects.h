#pragma once
// Screen rectangles of the named controls, reported in the state file so that tests
// and scripts can click them without hard-coded positions.
#include <array>
#include <map>
#include <string>

#include "imgui.h"

namespace app {

using Rect = std::array<float, 4>;  // x0, y0, x1, y1 in window pixels

class WidgetRects {
public:
    // The rectangle of the item ImGui drew last.
    // The rectangle of the item ImGui drew last; whether it holds the keyboard (a text
    // box being edited, a slider being typed into) is kept too.
    void record(const std::string& name) {
        const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
        rects_[name] = {a.x, a.y, b.x, b.y};
        if (ImGui::IsItemActive()) active_ = name;
    }
    void set(const std::string& name, const Rect& r) { rects_[name] = r; }
    void clear() {
        rects_.clear();
        active_.clear();
    }
    const std::map<std::string, Rect>& all() const { return rects_; }
    // The named control that is active this frame (typed keys go to it), or "".
    const std::string& active() const { return active_; }

private:
    std::map<std::string, Rect> rects_;
    std::string active_;
};

}  // namespace app
