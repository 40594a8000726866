#!/bin/bash
# A minute of the seeded monkey (tests/monkey/monkey.py) against the real window:
# random Unicode, pastes, sliders, shortcuts, session files, resizes; after every
# action the app must be alive, draw a frame (any delay short of a hang: the slowest is
# printed), and hold the text typed.
# MONKEY_SEED picks another run; MONKEY_SECONDS another length. A failure prints its
# seed: `MONKEY_SEED=N bash tests/app_monkey.test.sh build` replays it. The default seed is
# fixed so that the test command is repeatable; scripts/monkey-long.sh explores other seeds.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool xclip xmodmap python3
in_own_display
seed=${MONKEY_SEED:-1}
if python3 "$TESTS/monkey/monkey.py" --app "$APP" --seconds "${MONKEY_SECONDS:-60}" --seed "$seed" \
    --work "$WORK/monkey" --log "$WORK/monkey.log"; then
    pass "monkey, seed $seed"
else
    fail "monkey, seed $seed (log: $(tail -5 "$WORK/monkey.log" | tr '\n' ' '))"
fi
finish
