#pragma once
// Presenter mode's window: full screen on the monitor at its current video mode (under
// Xvfb, the screen's size) with the UI scale at least 2; leaving it restores the window
// and the scale it had.
struct GLFWwindow;

namespace app {

constexpr float kPresenterMinScale = 2.0f;

class PresenterWindow {
public:
    // Follows `on` (ViewState::presenter): changes the window only when it flips.
    // Returns whether it did.
    bool sync(GLFWwindow* window, bool on, float& ui_scale);

private:
    bool on_ = false;
    int x_ = 0, y_ = 0, w_ = 0, h_ = 0;
    float scale_ = 1.0f;
};

}  // namespace app
