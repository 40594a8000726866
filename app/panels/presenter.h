#pragma once
// Presenter mode's window: full screen (platform::full_screen: on the desktop the
// monitor at its current video mode, under Xvfb the screen's size; in the browser the
// browser's) with type as large relative to the screen as 2x is on 1080 lines; leaving
// it restores the window and the scale it had.
struct GLFWwindow;

namespace app {

// The UI scale for a screen `height` pixels tall: 2 at 1080 lines, 4/3 at 720. A fixed 2
// at 720 lines left ~320 px for the view under the lesson's text; the room reads the
// same fraction of the wall either way.
float presenter_scale(int height);

class PresenterWindow {
public:
    // Follows `on` (ViewState::presenter): changes the window only when it flips.
    // Returns whether it did.
    bool sync(GLFWwindow* window, bool on, float& ui_scale);

private:
    bool on_ = false;
    float scale_ = 1.0f;
};

}  // namespace app
