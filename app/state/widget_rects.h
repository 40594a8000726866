#pragma once
// Screen rectangles of the named controls, reported in the state file so that tests
// and scripts can click them without hard-coded positions.
#include <array>
#include <map>
#include <string>


namespace app {

using Rect = std::array<float, 4>;  // x0, y0, x1, y1 in window pixels

class WidgetRects {
public:
    // The rectangle of the item ImGui drew last; whether it holds the keyboard (a text
    // box being edited, a slider being typed into) is kept too. Defined with the window
    // (app/widget_rects.cpp): this header, and the state file that reads it, need no ImGui.
    void record(const std::string& name);
    void set(const std::string& name, const Rect& r) { rects_[name] = r; }
    void set_active(const std::string& name) { active_ = name; }
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
