#pragma once
// The keyboard as Dear ImGui 1.86 should see it: no keystroke lost to a slow frame,
// no typed character lost to a stale modifier.
struct GLFWwindow;

namespace app {

// Call after ImGui_ImplGlfw_InitForOpenGL(window, true); it chains to the backend.
//
// Keys: ImGui 1.86 reads key state once a frame (1.87 queues input events). A key
// pressed and released between two frames, as happens when a frame takes longer than
// the keystroke (software OpenGL under load), was never seen: a lesson's → or a
// Ctrl+Q did nothing. Now at most one change per key reaches ImGui between two
// frames, and a modifier's only before any other key's (state/input_gate.h); later
// ones wait for the next frame (release_held_keys), and so do the characters typed
// after them: text typed after Ctrl+A in one slow frame was inserted
// before the selection and then selected with it. A mouse button change waits in the
// same line: a click typed after a path waits for the path's last character.
//
// Characters: GLFW drops every character whose key event carries Control or Alt in
// the X server's modifier state. They are taken from the char-mods callback instead
// and dropped only while a Control or Alt key is really held (ImGui's key state), as
// a shortcut like Ctrl+S must be.
void install_keyboard(GLFWwindow* window);

// Call once a frame, after the last one was processed and before polling events:
// passes on the key and character events held back, and asks for the frame that
// takes them at once (an empty event: the main loop's wait ends).
void release_held_keys(GLFWwindow* window);

// Whether events wait for a later frame. Each frame lets at most one change per key
// through, so typed text drains a few characters a frame: frames that let it through
// must follow at once and be quick, or it arrives long after it was typed.
bool input_held_back();

// Key presses received so far, as they came (a test counts frames from here).
long keys_received();

// Call once a frame, after the windows are drawn: Escape closes every open menu, list
// and context menu, as in any desktop application (a dialog handles Escape itself).
// Dear ImGui 1.86 does that only with keyboard navigation on, which would take the
// arrow keys the lessons use. All popups at once, after drawing: a submenu closed from
// inside its menu while the pointer hovered it was reopened in the same frame, open
// but never drawn again (monkey seed 36571).
void close_popups_on_escape();

}  // namespace app
