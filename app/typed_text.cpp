#include "typed_text.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "backends/imgui_impl_glfw.h"
#include "imgui.h"

namespace app {

namespace {

void on_character(GLFWwindow* window, unsigned int codepoint, int mods) {
    const ImGuiIO& io = ImGui::GetIO();
    const bool shortcut_modifiers = (mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT)) != 0;
    // A modifier the event claims but no key holds is stale: the character is text.
    if (shortcut_modifiers && (io.KeyCtrl || io.KeyAlt)) return;
    ImGui_ImplGlfw_CharCallback(window, codepoint);
}

}  // namespace

void take_typed_characters(GLFWwindow* window) {
    glfwSetCharCallback(window, nullptr);  // the backend's: it would pass plain characters twice
    glfwSetCharModsCallback(window, on_character);
}

}  // namespace app
