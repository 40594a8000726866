// Which key changes a frame sees: the order of keystrokes typed faster than frames.
#include <catch2/catch.hpp>

#include "state/input_gate.h"

namespace {
using app::KeyChange;
constexpr int kCtrl = 341, kV = 86, kA = 65, kQ = 81, kCharacter = 0, kLeftButton = -1;  // GLFW's codes
constexpr bool modifier = true, key = false;
}  // namespace

TEST_CASE("a modifier released right after a key's press waits for the frame that sees the press", "[unit][keyboard]") {
    app::InputGate gate;
    REQUIRE(gate.admits(kCtrl, KeyChange::Press, modifier));  // Ctrl down: one frame
    gate.new_frame();
    REQUIRE(gate.admits(kV, KeyChange::Press, key));  // V down, and at once
    CHECK_FALSE(gate.admits(kCtrl, KeyChange::Release, modifier));  // Ctrl up: the frame must see Ctrl+V
    CHECK_FALSE(gate.admits(kV, KeyChange::Release, key));          // V up waits behind it
    gate.new_frame();
    CHECK(gate.admits(kCtrl, KeyChange::Release, modifier));
    CHECK(gate.admits(kV, KeyChange::Release, key));
}

TEST_CASE("a modifier released after a click waits for the frame that sees the click", "[unit][keyboard]") {
    app::InputGate gate;
    REQUIRE(gate.admits(kCtrl, KeyChange::Press, modifier));
    REQUIRE(gate.admits(kLeftButton, KeyChange::Press, key));
    CHECK_FALSE(gate.admits(kCtrl, KeyChange::Release, modifier));
}

TEST_CASE("a chord typed at once is down in one frame and up in the next", "[unit][keyboard]") {
    app::InputGate gate;
    CHECK(gate.admits(kCtrl, KeyChange::Press, modifier));
    CHECK(gate.admits(kQ, KeyChange::Press, key));
    CHECK_FALSE(gate.admits(kQ, KeyChange::Release, key));  // Q changed this frame
    CHECK_FALSE(gate.admits(kCtrl, KeyChange::Release, modifier));
    gate.new_frame();
    CHECK(gate.admits(kQ, KeyChange::Release, key));
    CHECK(gate.admits(kCtrl, KeyChange::Release, modifier));  // after a release: nothing to misread
}

TEST_CASE("a modifier pressed after another key waits, so the key is not read as a shortcut", "[unit][keyboard]") {
    app::InputGate gate;
    CHECK(gate.admits(kA, KeyChange::Press, key));                 // 'a' typed...
    CHECK_FALSE(gate.admits(kCtrl, KeyChange::Press, modifier));   // ...then Ctrl: not Ctrl+A
    gate.new_frame();
    CHECK(gate.admits(kCtrl, KeyChange::Press, modifier));
}

TEST_CASE("once one event waits every later one waits, characters and repeats too", "[unit][keyboard]") {
    app::InputGate gate;
    CHECK(gate.admits(kA, KeyChange::Press, key));
    CHECK_FALSE(gate.admits(kA, KeyChange::Release, key));  // a second change of A
    CHECK_FALSE(gate.admits(kCharacter, KeyChange::None, key));
    CHECK_FALSE(gate.admits(kQ, KeyChange::None, key));     // a repeat
    CHECK_FALSE(gate.admits(kLeftButton, KeyChange::Press, key));
    gate.new_frame();
    CHECK(gate.admits(kA, KeyChange::Release, key));
    CHECK(gate.admits(kCharacter, KeyChange::None, key));
    CHECK(gate.admits(kLeftButton, KeyChange::Press, key));
    CHECK(gate.admits(kCharacter, KeyChange::None, key));  // characters change no key: any number a frame
    CHECK(gate.admits(kCharacter, KeyChange::None, key));
}
