#include "keyboard.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <set>
#include <vector>

#include "backends/imgui_impl_glfw.h"
#include "imgui.h"

namespace app {

namespace {

struct KeyEvent {
    int key, scancode, action, mods;
};

GLFWkeyfun backend_key = nullptr;  // Dear ImGui's own callback
std::set<int> changed_since_frame; // keys that went down or up since the frame began
std::vector<KeyEvent> held;        // events held back for later frames, in order

// At most one change per key reaches ImGui between two frames; once one event waits,
// every later one waits too, so the order stays as typed. Ctrl+Q typed at once (Ctrl
// down, Q down, Q up, Ctrl up) is seen as Ctrl and Q down in one frame, both up in the
// next; two quick → are two presses, not one long one.
void deliver(GLFWwindow* window, const KeyEvent& e) {
    if (e.action != GLFW_REPEAT && (!held.empty() || changed_since_frame.count(e.key))) {
        held.push_back(e);
        return;
    }
    if (e.action != GLFW_REPEAT) changed_since_frame.insert(e.key);
    if (backend_key) backend_key(window, e.key, e.scancode, e.action, e.mods);
}

void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
    deliver(window, {key, scancode, action, mods});
}

void on_character(GLFWwindow* window, unsigned int codepoint, int mods) {
    const ImGuiIO& io = ImGui::GetIO();
    const bool shortcut_modifiers = (mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT)) != 0;
    // A modifier the event claims but no key holds is stale: the character is text.
    if (shortcut_modifiers && (io.KeyCtrl || io.KeyAlt)) return;
    ImGui_ImplGlfw_CharCallback(window, codepoint);
}

}  // namespace

void install_keyboard(GLFWwindow* window) {
    backend_key = glfwSetKeyCallback(window, on_key);
    glfwSetCharCallback(window, nullptr);  // the backend's: it would pass plain characters twice
    glfwSetCharModsCallback(window, on_character);
}

void release_held_keys(GLFWwindow* window) {
    changed_since_frame.clear();
    std::vector<KeyEvent> waiting;
    waiting.swap(held);
    for (const KeyEvent& e : waiting) deliver(window, e);
    if (!held.empty()) glfwPostEmptyEvent();  // draw the frame that lets the rest through
}

}  // namespace app
