#!/bin/bash
# Zoom and pan in the focus view (issue 13): the wheel over the heatmap zooms about the
# cell under the pointer, a drag pans, and the hovered cell is the whole matrix's. A
# 2048 x 2048 weights matrix drawn in ~600 pixels shows block means; zoomed in, cells.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display
words=$(numbered_words 2048)
block="s['heatmaps']['weights']['block']"

start_app --variant mha --heads 2 --d-in 16 --d-out 16 --text "$words"
check "window appears" test -n "$WID"
check "the run arrives" wait_state "$(settled 1) and s['error'] is None"
hold f
check "focus shows head 1's weights whole" wait_state "s['focus'] and 'weights' in s['heatmaps'] and $block == [0, 0, 2048, 2048]"

# The pointer a quarter across and three quarters down: on cell (1536, 512).
read -r x y <<<"$(heatmap_point weights 0.25 0.75)"
xdotool mousemove --window "$WID" "$x" "$y"
near="abs(s['hover'][1] - 1536) <= 8 and abs(s['hover'][2] - 512) <= 8"
check "the pointer is on cell (1536, 512)" wait_state "s['hover'] is not None and s['hover'][0] == 'weights' and $near"
for _ in $(seq 1 16); do xdotool click 4; sleep 0.1; done
check "the wheel zooms in about the pointer: the same cell under it" \
    wait_state "$block[2] <= 128 and $block[2] == $block[3] and s['hover'] is not None and $near"
before=$(json "$STATE" "$block")
window_shot "$WORK/zoomed.png"

# Drag up and left by a quarter of the heatmap: later rows and columns come into view.
# Each step is seen in a frame of its own (a slow frame would fold a press, a move and a
# release into one: a click, not a drag).
xdotool mousedown 1
frames_pass >/dev/null
xdotool mousemove_relative -- -150 -150
frames_pass >/dev/null
xdotool mouseup 1
check "a drag pans" wait_state "$block[0] > $before[0] and $block[1] > $before[1] and $block[2] == $before[2]"

for _ in $(seq 1 40); do xdotool click 5; sleep 0.05; done
check "the wheel zooms back out to the whole matrix" wait_state "$block == [0, 0, 2048, 2048]"
check "still running" kill -0 "$APP_PID"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0
finish
