#!/bin/bash
# Issue 35's case: a causal head over an 18-token GPT-2 sentence in presenter focus, at a
# projector's 1280x720 and at 1920x1080. Every column is labelled with its token (turned
# where it is wider than its cell, never "…" where turned it fits), no number wraps, the
# matrix fills at least half the smaller side of its view, and the row and column under
# the pointer are drawn whole and emphasised (tests/app_readable.py reads the state file).
# READABLE_SHOTS=DIR keeps a screenshot of each size there.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3

if [ -z "$READABLE_SIZE" ]; then
    status=0
    for size in 1280x720 1920x1080; do
        READABLE_SIZE=$size ATTNSCOPE_IN_XVFB=1 xvfb-run -a -s "-screen 0 ${size}x24" bash "$0" "$BUILD" || status=1
    done
    exit $status
fi

text="The teacher asked which word the model would look at next, and the class guessed wrong again"
start_app --tokenizer gpt2 --variant causal --d-in 16 --d-out 8 --text "$text" --show-stage weights --presenter
at="at $READABLE_SIZE"
if wait_state "$(settled) and s['focus'] == 'weights' and 'weights' in s['heatmaps'] and len(s['tokens']) == 18"; then
    frames_pass 2 >/dev/null
    check "18 tokens, the weights in focus read $at" python3 "$TESTS/app_readable.py" "$STATE" --focus-stage weights
    cols="s['heatmaps']['weights']['labels']['cols']"
    check "every column labelled with its whole token $at" test "$(json "$STATE" \
        "len($cols['labels']) == 18 and all(l['as'] in ('whole', 'turned') for l in $cols['labels'])")" = true
    check "the column of 'teacher' says so $at" test "$(json "$STATE" \
        "[l['text'] for l in $cols['labels']][1].strip('␣ ') == 'teacher'")" = true
    read -r x y < <(heatmap_point weights 0.09 0.5)  # column 2 ('teacher'), row 10
    xdotool mousemove --window "$WID" "$x" "$y"
    if wait_state "s['hover'] is not None and s['hover'][0] == 'weights'"; then
        frames_pass 2 >/dev/null
        check "the hovered column's label whole and emphasised $at" test "$(json "$STATE" \
            "(lambda c: $cols['labels'][c]['hot'] and $cols['labels'][c]['as'] != 'shortened')(s['hover'][2])")" = true
        check "the hovered row's label whole and emphasised $at" test "$(json "$STATE" \
            "(lambda r: s['heatmaps']['weights']['labels']['rows']['labels'][r]['hot'] and \
s['heatmaps']['weights']['labels']['rows']['labels'][r]['as'] == 'whole')(s['hover'][1])")" = true
        check "still readable with the pointer on a cell $at" python3 "$TESTS/app_readable.py" "$STATE" --focus-stage weights
    else
        fail "the pointer on the weights $at: no hover"
    fi
    [ -n "$READABLE_SHOTS" ] && window_shot "$READABLE_SHOTS/readable-$READABLE_SIZE.png"
else
    fail "the 18-token weights in presenter focus $at: not shown"
fi
quit_app
finish
