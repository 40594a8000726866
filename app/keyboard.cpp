#include "keyboard.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <vector>

#include "backends/imgui_impl_glfw.h"
#include "imgui.h"
#include "imgui_internal.h"  // closing every popup at once (see close_popups_on_escape)
#include "platform/platform.h"
#include "state/input_gate.h"

namespace app {

namespace {

// A key change, a typed character or a mouse button change, as GLFW reported it.
enum class Kind { Key, Character, MouseButton };
struct InputEvent {
    Kind kind;
    int key, scancode, action, mods;  // for a key; key is the button for a mouse button
    unsigned int codepoint;           // for a character
};

GLFWkeyfun backend_key = nullptr;                  // Dear ImGui's own callbacks
GLFWmousebuttonfun backend_mouse_button = nullptr;
InputGate gate;                     // which events this frame may see
std::vector<InputEvent> held;       // events held back for later frames, in order
long received = 0;                  // key presses, before any is held back

void pass_character(GLFWwindow* window, unsigned int codepoint, int mods) {
    const ImGuiIO& io = ImGui::GetIO();
    const bool shortcut_modifiers = (mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT)) != 0;
    // A modifier the event claims but no key holds is stale: the character is text.
    if (shortcut_modifiers && (io.KeyCtrl || io.KeyAlt)) return;
    ImGui_ImplGlfw_CharCallback(window, codepoint);
}

bool is_modifier(const InputEvent& e) {
    return e.kind == Kind::Key && e.key >= GLFW_KEY_LEFT_SHIFT && e.key <= GLFW_KEY_RIGHT_SUPER;
}

// Events pass in order, each once InputGate admits it. Text typed right after Ctrl+A
// lands after the selection, not before it; a click on Load right after a path was
// typed waits behind the path's held-back characters, or it loaded half a path.
void deliver(GLFWwindow* window, const InputEvent& e) {
    const int id = e.kind == Kind::MouseButton ? -1 - e.key : e.key;
    const KeyChange change = e.kind == Kind::Character ? KeyChange::None
                             : e.action == GLFW_PRESS   ? KeyChange::Press
                             : e.action == GLFW_RELEASE ? KeyChange::Release
                                                        : KeyChange::None;  // a repeat
    if (!gate.admits(id, change, is_modifier(e))) {
        held.push_back(e);
        return;
    }
    switch (e.kind) {
        case Kind::Character: pass_character(window, e.codepoint, e.mods); break;
        case Kind::Key:
            if (backend_key) backend_key(window, e.key, e.scancode, e.action, e.mods);
            break;
        case Kind::MouseButton:
            if (backend_mouse_button) backend_mouse_button(window, e.key, e.action, e.mods);
            break;
    }
}

void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
    if (action == GLFW_PRESS) ++received;
    deliver(window, {Kind::Key, key, scancode, action, mods, 0});
}

void on_character(GLFWwindow* window, unsigned int codepoint, int mods) {
    deliver(window, {Kind::Character, 0, 0, 0, mods, codepoint});
}

void on_mouse_button(GLFWwindow* window, int button, int action, int mods) {
    deliver(window, {Kind::MouseButton, button, 0, action, mods, 0});
}

}  // namespace

void install_keyboard(GLFWwindow* window) {
    backend_key = glfwSetKeyCallback(window, on_key);
    backend_mouse_button = glfwSetMouseButtonCallback(window, on_mouse_button);
    glfwSetCharCallback(window, nullptr);  // the backend's: it would pass plain characters twice
    platform::on_characters(window, on_character);
}

void release_held_keys(GLFWwindow* window) {
    gate.new_frame();
    std::vector<InputEvent> waiting;
    waiting.swap(held);
    for (const InputEvent& e : waiting) deliver(window, e);
    // The frame that sees them now: the main loop would otherwise wait up to 0.1 s for an
    // event while the worker runs.
    if (!waiting.empty()) glfwPostEmptyEvent();
}

bool input_held_back() { return !held.empty(); }

long keys_received() { return received; }

void close_popups_on_escape() {
    if (!ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) return;
    if (ImGui::GetTopMostPopupModal()) return;  // the file dialog: Escape cancels it there
    ImGui::ClosePopupsOverWindow(nullptr, false);  // nullptr: every popup
}

}  // namespace app
