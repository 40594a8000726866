#include "panels/presenter.h"

#include <algorithm>

#include "graphics/gl.h"
#include <GLFW/glfw3.h>

namespace app {

bool PresenterWindow::sync(GLFWwindow* window, bool on, float& ui_scale) {
    if (on == on_) return false;
    on_ = on;
    if (on) {
        glfwGetWindowPos(window, &x_, &y_);
        glfwGetWindowSize(window, &w_, &h_);
        scale_ = ui_scale;
        ui_scale = std::max(ui_scale, kPresenterMinScale);
        GLFWmonitor* monitor = glfwGetPrimaryMonitor();
        if (const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr)
            glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
        glfwSetWindowMonitor(window, nullptr, x_, y_, w_, h_, 0);
        ui_scale = scale_;
    }
    return true;
}

}  // namespace app
