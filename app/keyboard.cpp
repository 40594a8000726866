#include "keyboard.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <set>
#include <vector>

#include "backends/imgui_impl_glfw.h"
#include "imgui.h"
#include "imgui_internal.h"  // closing every popup at once (see close_popups_on_escape)
#include "platform/platform.h"

namespace app {

namespace {

// A key change or a typed character, as GLFW reported it.
struct InputEvent {
    bool is_character;
    int key, scancode, action, mods;  // for a key
    unsigned int codepoint;           // for a character
};

GLFWkeyfun backend_key = nullptr;  // Dear ImGui's own callback
std::set<int> changed_since_frame; // keys that went down or up since the frame began
std::vector<InputEvent> held;      // events held back for later frames, in order

void pass_character(GLFWwindow* window, unsigned int codepoint, int mods) {
    const ImGuiIO& io = ImGui::GetIO();
    const bool shortcut_modifiers = (mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT)) != 0;
    // A modifier the event claims but no key holds is stale: the character is text.
    if (shortcut_modifiers && (io.KeyCtrl || io.KeyAlt)) return;
    ImGui_ImplGlfw_CharCallback(window, codepoint);
}

// At most one change per key reaches ImGui between two frames; once one event waits,
// every later one waits too, characters included, so the order stays as typed. Ctrl+Q
// typed at once (Ctrl down, Q down, Q up, Ctrl up) is seen as Ctrl and Q down in one
// frame, both up in the next; two quick → are two presses, not one long one; text
// typed right after Ctrl+A lands after the selection, not before it.
void deliver(GLFWwindow* window, const InputEvent& e) {
    const bool changes_key = !e.is_character && e.action != GLFW_REPEAT;
    if (!held.empty() || (changes_key && changed_since_frame.count(e.key))) {
        held.push_back(e);
        return;
    }
    if (e.is_character) {
        pass_character(window, e.codepoint, e.mods);
        return;
    }
    if (changes_key) changed_since_frame.insert(e.key);
    if (backend_key) backend_key(window, e.key, e.scancode, e.action, e.mods);
}

void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
    deliver(window, {false, key, scancode, action, mods, 0});
}

void on_character(GLFWwindow* window, unsigned int codepoint, int mods) {
    deliver(window, {true, 0, 0, 0, mods, codepoint});
}

}  // namespace

void install_keyboard(GLFWwindow* window) {
    backend_key = glfwSetKeyCallback(window, on_key);
    glfwSetCharCallback(window, nullptr);  // the backend's: it would pass plain characters twice
    platform::on_characters(window, on_character);
}

void release_held_keys(GLFWwindow* window) {
    changed_since_frame.clear();
    std::vector<InputEvent> waiting;
    waiting.swap(held);
    for (const InputEvent& e : waiting) deliver(window, e);
    if (!held.empty()) glfwPostEmptyEvent();  // draw the frame that lets the rest through
}

void close_popups_on_escape() {
    if (!ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) return;
    if (ImGui::GetTopMostPopupModal()) return;  // the file dialog: Escape cancels it there
    ImGui::ClosePopupsOverWindow(nullptr, false);  // nullptr: every popup
}

}  // namespace app
