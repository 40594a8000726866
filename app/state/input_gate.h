#pragma once
// Which input changes a frame of Dear ImGui 1.86 may see (app/keyboard.h says why it
// reads key state once a frame). No GLFW here: a key is its code, a mouse button is
// -1 - button, and the caller says which keys are modifiers.
#include <set>

namespace app {

// What an event does to its key or button: a repeat or a typed character changes none.
enum class KeyChange { None, Press, Release };

class InputGate {
public:
    // Whether an event may reach ImGui before the frame that reads it. A refused event
    // waits for a later frame, and so does everything after it, so the order stays as
    // typed.
    bool admits(int id, KeyChange change, bool modifier);
    // A frame read the keys: each may change once more.
    void new_frame();

private:
    std::set<int> changed_;      // keys and buttons changed since the frame began
    bool other_pressed_ = false;  // among them a key or button, not a modifier, pressed
    bool refusing_ = false;       // one event waits: every later one waits behind it
};

}  // namespace app
