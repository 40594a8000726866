#!/bin/bash
# Impossible settings are explained in place while the window keeps drawing: from
# the command line, and from the controls (the last good view stays on screen).
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3 import
in_own_display

# 1. Started with d_out not divisible by heads: the error names it, the app runs on.
start_app --variant mha --heads 3 --d-out 2
check "window appears" test -n "$WID"
check "error names divisibility" wait_state "s['error'] is not None and 'divisible' in s['error']"
frame=$(json "$STATE" "s['frame']")
xdotool mousemove --window "$WID" 600 400
check "frames go on being drawn" wait_state "s['frame'] >= $frame + 5"
check "still running" kill -0 "$APP_PID"
window_shot "$WORK/bad.png"
check "still drawing (screenshot not blank)" $PNG nonblank "$WORK/bad.png"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0

# 2. A good start, then an impossible slider value and an empty text: each is
# explained, and the last good run stays on screen.
start_app --variant mha --heads 2 --d-in 4 --d-out 4
check "first run computed" wait_state "$(settled 1) and s['error'] is None"
version=$(json "$STATE" "s['run_version']")
slider_to heads 3
check "heads 3 with d_out 4 is explained" wait_state "s['heads'] == 3 and s['error'] is not None and 'divisible' in s['error']"
check "the last good view stays" wait_state "s['run_version'] == $version and s['shown_heads'] == 2"

activate text
hold ctrl+a
hold BackSpace
check "an empty text is explained" wait_state "s['text'] == '' and s['error'] is not None and 'empty' in s['error']"
# Anything typed is taken: accents, symbols, other scripts, stray commas.
type_text "Grüße, € 你好 ,,, x"
check "any text is accepted" wait_state "s['text'] == 'Grüße, € 你好 ,,, x'"
window_shot "$WORK/after.png"
check "still drawing after odd input" $PNG nonblank "$WORK/after.png"
check "still running after odd input" kill -0 "$APP_PID"
quit_app
check "ctrl+q exits 0 after odd input" test "$APP_EXIT" -eq 0

# 3. Over the memory budget: 2000 pasted words need ~150 MB of T x T stages, the
# budget is 64 MB. Refused before computing, explained, the last good view kept.
python3 -c 'print(" ".join("w%d" % (i % 40) for i in range(2000)), end="")' >"$WORK/words.txt"
xclip -quiet -selection clipboard -i "$WORK/words.txt" >/dev/null 2>&1 &
CLIP=$!
start_app --variant causal --d-in 64 --d-out 64 --memory-budget 64M --text "a small text"
check "a small text fits the budget" wait_state "$(settled 1) and s['error'] is None"
version=$(json "$STATE" "s['run_version']")
activate text
hold ctrl+a
paste_once
check "2000 words over the budget are explained" \
    wait_state "len(s['text'].split()) == 2000 and not s['computing'] and s['error'] is not None and 'budget 64 MB' in s['error']"
check "the message names the text length" wait_state "'2000 tokens' in s['error']"
check "the last good view stays" test "$(json "$STATE" "[s['run_version'], s['tokens']]")" = "[$version, [\"a\", \"small\", \"text\"]]"
check "still running over the budget" kill -0 "$APP_PID"
quit_app
kill "$CLIP" 2>/dev/null; wait "$CLIP" 2>/dev/null
check "ctrl+q exits 0 over the budget" test "$APP_EXIT" -eq 0
finish
