#!/bin/bash
# The view never draws a head the run on screen does not have: a lesson step or a
# session file may ask for head 2 while the run shown has one head (issue 9: the
# pipeline read past the heads, then the window hung and grew past 1.6 GB).
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3 import
in_own_display

# 1. Step 1 of 3.6.1 (two stacked heads); Shift+H leaves one head; → goes to step 2,
# which selects head 2 before its own run (two heads again) has arrived.
start_app --lesson 3.6.1 --lesson-step 1
check "window appears" test -n "$WID"
check "step 1 shows two heads" wait_state "$(settled 1) and s['shown_heads'] == 2"
hold shift+h
check "Shift+H leaves one head" wait_state "$(settled) and s['shown_heads'] == 1 and s['selected_head'] == 0"
hold Right
check "step 2 arrives with its two heads and shows head 2" \
    wait_state "$(settled) and s['lesson']['step'] == 2 and s['shown_heads'] == 2 and s['selected_head'] == 1"
# Back and forth faster than the runs arrive.
for _ in 1 2 3; do hold shift+h; hold Left; hold Right; done
check "still answering after quick steps" wait_state "$(settled) and s['lesson']['step'] == 2"
check "still running" kill -0 "$APP_PID"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0

# 2. A session file that selects head 5 of a 6-head run, opened over a 1-head run.
# GPT-2's 50257-row embedding table takes far longer than a frame to draw, so the
# old run is still on screen when the session's selection arrives.
"$APP" --variant mha --heads 6 --tokenizer gpt2 --d-in 768 --d-out 768 --head 5 --save-session "$WORK/six.json" \
    --screenshot "$WORK/six.png" >/dev/null 2>&1
check "a 6-head session is saved with head 5" test "$(json "$WORK/six.json" "s['ui']['selected_head']")" = 4
start_app --variant causal
check "one head on screen" wait_state "$(settled 1) and s['shown_heads'] == 1"
hold ctrl+o
check "the open dialog appears" wait_state "s['dialog'] is not None"
type_path "$WORK/six.json"
check "the session's run arrives and shows head 5" \
    wait_state "$(settled) and s['shown_heads'] == 6 and s['selected_head'] == 4 and s['session']['error'] is None"
check "still running after the session" kill -0 "$APP_PID"
quit_app
check "ctrl+q exits 0 after the session" test "$APP_EXIT" -eq 0
finish
