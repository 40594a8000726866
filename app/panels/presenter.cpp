#include "panels/presenter.h"

#include <algorithm>

#include "platform/platform.h"

namespace app {

float presenter_scale(int height) { return std::clamp(static_cast<float>(height) / 540.0f, 1.25f, 3.0f); }

bool PresenterWindow::sync(GLFWwindow* window, bool on, float& ui_scale) {
    if (on == on_) return false;
    on_ = on;
    if (on) {
        scale_ = ui_scale;
        ui_scale = std::max(ui_scale, presenter_scale(platform::screen_height()));
    } else {
        ui_scale = scale_;
    }
    platform::full_screen(window, on);
    return true;
}

}  // namespace app
