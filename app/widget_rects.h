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
    void record(const std::string& name) {
        const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
        rects_[name] = {a.x, a.y, b.x, b.y};
    }
    void set(const std::string& name, const Rect& r) { rects_[name] = r; }
    void clear() { rects_.clear(); }
    const std::map<std::string, Rect>& all() const { return rects_; }

private:
    std::map<std::string, Rect> rects_;
};

}  // namespace app
