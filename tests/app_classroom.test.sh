#!/bin/bash
# Classroom mode (issue 5) in the real window: presenter mode fills a 1280x720 screen
# with the controls hidden and its shortcuts move heads, dropout and seed; sessions
# round-trip through the app and damaged or foreign files are refused in place; the
# app's exports load in NumPy and its PyTorch program prints the CLI's JSON.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
if [ -z "$ATTNSCOPE_IN_XVFB" ]; then  # a projector's 1280x720, not app_lib's 1280x800
    ATTNSCOPE_IN_XVFB=1 exec xvfb-run -a -s "-screen 0 1280x720x24" bash "$0" "$BUILD"
fi
PY=/usr/bin/python3  # Debian's, with python3-numpy and python3-torch
near() { python3 -c "import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) < 1e-6 else 1)" "$1" "$2"; }

# --- presenter mode ---
start_app --presenter --variant mha-wrapper --heads 2 --seed 5
wait_state "$(settled)"
# Full screen and the large type arrive in the frames after the first run.
check "presenter mode fills the 1280x720 screen" wait_state "s['framebuffer'] == [1280, 720]"
check "presenter mode hides the controls" \
    wait_state "[s['presenter'], s['controls_hidden'], 'text' in s['widgets']] == [True, True, False]"
# Type scaled to the screen: 720 lines get 4/3 (2 at 1080), as large a share of the wall.
check "presenter mode uses large type" wait_state "abs(s['ui_scale'] - 720 / 540) < 1e-3"
hold h
check "H: one head more" wait_state "s['heads'] == 3 and $(settled)"
hold shift+h
check "Shift+H: one head fewer" wait_state "s['heads'] == 2"
hold d
check "D: dropout + 0.1" wait_state "abs(s['dropout'] - 0.1) < 1e-6"
hold d
hold shift+d
check "Shift+D: dropout - 0.1" wait_state "abs(s['dropout'] - 0.1) < 1e-6"
hold r
check "R: reseed (seed + 1)" wait_state "s['seed'] == 6"
hold question
check "?: the shortcut overlay" wait_state "s['help']"
# Every state written after leaving presenter mode must show the text box where it
# stays: a click there must not miss (the frame drawn as F5 was handled still had the
# presenter's large layout, and the state reported it).
# The watcher reads every state until the test says stop, four frames after the controls
# came back (at least 2 s: an idle app draws twice a second).
python3 - "$STATE" "$WORK/watching" "$WORK/stop-watching" "$HANG" >"$WORK/text-rects" <<'EOF_PY' &
import json, os, sys, time
state, watching, stop, hang = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
seen, end = set(), time.monotonic() + hang
while not os.path.exists(stop) and time.monotonic() < end:
    try:
        s = json.load(open(state))
    except (OSError, ValueError):
        continue
    open(watching, "w").close()
    if not s["presenter"] and "text" in s["widgets"]:
        seen.add(tuple(s["widgets"]["text"]))
    time.sleep(0.002)
print(len(seen), sorted(seen))  # the distinct rectangles
EOF_PY
watcher=$!
for _ in $(seq 1200); do [ -e "$WORK/watching" ] && break; sleep 0.1; done
hold F5
check "F5 leaves presenter mode with the controls back" wait_state "not s['presenter'] and 'text' in s['widgets'] and s['ui_scale'] == 1"
frames_pass 4 >/dev/null
touch "$WORK/stop-watching"
wait "$watcher"
check "after F5 the state shows the text box in one place only ($(cat "$WORK/text-rects"))" \
    test "$(cut -d' ' -f1 "$WORK/text-rects")" = 1
quit_app
check "the app quits cleanly" test "$APP_EXIT" -eq 0

"$APP" --presenter --colormap high-contrast --lesson 3.5.1 --lesson-step 2 --screenshot "$WORK/presenter.png" \
    --state-out "$WORK/presenter.json" >/dev/null 2>&1
check "presenter screenshot is non-blank" $PNG nonblank "$WORK/presenter.png"
check "presenter screenshot is 1280x720" python3 -c "
import struct, sys; w, h = struct.unpack('>II', open('$WORK/presenter.png', 'rb').read()[16:24]); sys.exit(0 if (w, h) == (1280, 720) else 1)"
check "the high-contrast colour map is on" test "$(json "$WORK/presenter.json" "s['colormap']")" = high-contrast

# --- sessions ---
FREE=(--variant causal --text "the cat sat down" --seed 7 --dropout 0.3 --colormap colorblind --head 1)
"$APP" "${FREE[@]}" --save-session "$WORK/free.json" --screenshot "$WORK/a.png" >/dev/null 2>&1
check "--save-session writes the file" test -s "$WORK/free.json"
"$APP" --session "$WORK/free.json" --state-out "$WORK/free-state.json" --screenshot "$WORK/b.png" >/dev/null 2>&1
check "the session comes back: text, variant, seed, dropout, colour map" \
    test "$(json "$WORK/free-state.json" "[s['text'], s['variant'], s['seed'], round(s['dropout'], 6), s['colormap'], s['session']['error']]")" \
    = '["the cat sat down", "causal", 7, 0.3, "colorblind", null]'
"$APP" --lesson 3.5.1 --lesson-step 3 --save-session "$WORK/lesson.json" --screenshot "$WORK/c.png" >/dev/null 2>&1
"$APP" --session "$WORK/lesson.json" --state-out "$WORK/lesson-state.json" --screenshot "$WORK/d.png" >/dev/null 2>&1
check "the lesson position comes back" \
    test "$(json "$WORK/lesson-state.json" "[s['lesson']['id'], s['lesson']['step'], s['lesson']['active']]")" = '["3.5.1", 3, true]'

printf '{"format": "attnscope-session", "version": 1, "settings": {"te' >"$WORK/damaged.json"
printf '{"format": "someone-elses", "data": [1, 2, 3]}\n' >"$WORK/foreign.json"
for kind in damaged foreign; do
    start_app --session "$WORK/$kind.json" --text "kept text"
    check "a $kind session file is refused with a message" wait_state "s['session'] and s['session']['error'] and $(settled)"
    check "after the $kind file the view is kept" test "$(json "$STATE" "s['text']")" = "kept text"
    quit_app
    check "after the $kind file the app quits cleanly" test "$APP_EXIT" -eq 0
done

# --- exports ---
FLAGS=(--variant causal --text "Your journey starts with one step")
"$APP" "${FLAGS[@]}" --export-all "$WORK/exp" --save-py "$WORK/attention.py" --state-out "$WORK/e.json" \
    --screenshot "$WORK/e.png" >/dev/null 2>&1
"$CLI" "${FLAGS[@]}" >"$WORK/cli.json"
check "the last export is reported without error" \
    test "$(json "$WORK/e.json" "[s['last_export']['path'].endswith('attention.py'), s['last_export']['error']]")" = "[true, null]"
check "exported weights load in NumPy and equal the CLI's" $PY -c "
import json, numpy as np, sys
w = np.load('$WORK/exp/head0_weights.npy')
cli = np.array(json.load(open('$WORK/cli.json'))['heads'][0]['weights'], dtype=np.float32)
sys.exit(0 if w.shape == (6, 6) and np.allclose(w, cli, atol=1e-6) else 1)"
if $PY -c 'import torch' 2>/dev/null; then
    $PY "$WORK/attention.py" --json >"$WORK/py.json" 2>"$WORK/py.err"
    check "the app's .py prints the CLI's JSON" python3 "$TESTS/compare_json.py" "$WORK/cli.json" "$WORK/py.json"
else
    fail "$PY cannot import torch: install Debian's python3-torch"
fi
"$APP" "${FLAGS[@]}" --export-all /proc/no-such-dir --state-out "$WORK/x.json" --screenshot "$WORK/x.png" >/dev/null 2>&1
check "an export that cannot be written says why" test "$(json "$WORK/x.json" "s['last_export']['error'] is not None")" = true
finish
