#!/bin/bash
# A minute of the seeded monkey (tests/monkey/monkey.py) against the real window:
# random Unicode, pastes, bursts of fast typing, sliders, shortcuts, session files,
# resizes; after every action the app must be alive, draw a frame (any delay short of a
# hang: the slowest is printed), and hold the text typed; a burst and F5 must show in the
# state within a few frames of the last key, and with no input the app must start no run.
# MONKEY_SEED picks another run; MONKEY_SECONDS another length. A failure prints its
# seed: `MONKEY_SEED=N bash tests/app_monkey.test.sh build` replays it. The default seed is
# fixed so that the test command is repeatable; scripts/monkey-long.sh explores other seeds.
# MONKEY_WALKS="SEED:MODE ..." walks several in turn, MONKEY_SECONDS each (MODE chapter3 or
# model): scripts/test.sh --deep walks four under AddressSanitizer.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool xclip xmodmap python3
in_own_display
mkdir -p "$WORK/monkey"  # one folder: the session files the first walk saves serve the others
for walk in ${MONKEY_WALKS:-${MONKEY_SEED:-1}:chapter3}; do
    seed=${walk%%:*} mode=${walk#*:}
    log="$WORK/monkey-$seed-$mode.log"
    if python3 "$TESTS/monkey/monkey.py" --app "$APP" --seconds "${MONKEY_SECONDS:-60}" --seed "$seed" \
        --mode "$mode" --work "$WORK/monkey" --log "$log"; then
        pass "monkey, seed $seed, $mode mode"
    else
        fail "monkey, seed $seed, $mode mode (log: $(tail -5 "$log" | tr '\n' ' '))"
    fi
done
finish
