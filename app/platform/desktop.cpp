#include "platform/platform.h"

#include "base/file_io.h"
#include "graphics/gl.h"
#include <GLFW/glfw3.h>

#include "imgui.h"

namespace app::platform {

void publish_state(const std::string& path, const std::string& json) {
    attn::write_file_atomically(path, json + "\n", /*durable=*/false);
}

std::string deliver(const std::string&) { return ""; }  // written where the user asked

std::string download_note(const std::string&) { return ""; }

const KeptModels& kept_models() {  // the Hugging Face cache on disk is what the desktop keeps
    static const KeptModels none;
    return none;
}
void remove_kept_model(const std::string&) {}

bool has_file_picker() { return false; }
void pick_file(const std::string&) {}
std::optional<std::string> picked_file(const std::string&, std::string&) { return std::nullopt; }

void copy_text(const std::string& text) { ImGui::SetClipboardText(text.c_str()); }  // GLFW's, X11's

void full_screen(GLFWwindow* window, bool on) {
    static int x = 0, y = 0, w = 1280, h = 800;  // the (one) window before presenter mode
    if (on) {
        glfwGetWindowPos(window, &x, &y);
        glfwGetWindowSize(window, &w, &h);
        GLFWmonitor* monitor = glfwGetPrimaryMonitor();
        if (const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr)
            glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
        glfwSetWindowMonitor(window, nullptr, x, y, w, h, 0);
    }
}


void on_characters(GLFWwindow* window, CharacterCallback callback) { glfwSetCharModsCallback(window, callback); }

int screen_height() {
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
    return mode ? mode->height : 1080;
}

}  // namespace app::platform
