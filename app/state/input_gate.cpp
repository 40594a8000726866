#include "state/input_gate.h"

namespace app {

// At most one change per key between two frames: Ctrl+Q typed at once (Ctrl down, Q
// down, Q up, Ctrl up) is Ctrl and Q down in one frame, both up in the next; two quick
// → are two presses, not one long one.
// A modifier changes only before any other key is pressed in a frame: a frame reads Ctrl
// and V as they stand at its end, so Ctrl released right after V was pressed made the
// frame see a plain V, and Ctrl+V pasted nothing (app_bad_input, one run in three under
// load); 'a' typed just before Ctrl would be read as Ctrl+A.
bool InputGate::admits(int id, KeyChange change, bool modifier) {
    const bool changes = change != KeyChange::None;
    if (refusing_ || (changes && (changed_.count(id) || (modifier && other_pressed_)))) {
        refusing_ = true;
        return false;
    }
    if (changes) changed_.insert(id);
    if (change == KeyChange::Press && !modifier) other_pressed_ = true;
    return true;
}

void InputGate::new_frame() {
    changed_.clear();
    other_pressed_ = false;
    refusing_ = false;
}

}  // namespace app
