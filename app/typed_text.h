#pragma once
// Typed characters reach the text boxes whatever modifier state the X server
// reports with them.
struct GLFWwindow;

namespace app {

// Call after ImGui_ImplGlfw_InitForOpenGL(window, true). GLFW's character callback
// drops every character whose key event carries Control or Alt in the X server's
// modifier state; a state left stale (xdotool remapping a spare key to type "€"
// or "你") then silently loses what the user typed. This takes characters from the
// char-mods callback instead and drops them only while a Control or Alt key is
// really held (Dear ImGui's own key state), as a shortcut like Ctrl+S must be.
void take_typed_characters(GLFWwindow* window);

}  // namespace app
