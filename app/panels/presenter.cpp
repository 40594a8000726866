#include "panels/presenter.h"

#include <algorithm>

#include "graphics/gl.h"
#include <GLFW/glfw3.h>

namespace app {

float presenter_scale(int height) { return std::clamp(static_cast<float>(height) / 540.0f, 1.25f, 3.0f); }

bool PresenterWindow::sync(GLFWwindow* window, bool on, float& ui_scale) {
    if (on == on_) return false;
    on_ = on;
    if (on) {
        glfwGetWindowPos(window, &x_, &y_);
        glfwGetWindowSize(window, &w_, &h_);
        scale_ = ui_scale;
        GLFWmonitor* monitor = glfwGetPrimaryMonitor();
        const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
        ui_scale = std::max(ui_scale, presenter_scale(mode ? mode->height : 1080));
        if (mode) glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
        glfwSetWindowMonitor(window, nullptr, x_, y_, w_, h_, 0);
        ui_scale = scale_;
    }
    return true;
}

}  // namespace app
