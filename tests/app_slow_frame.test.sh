#!/bin/bash
# Input typed during one long frame keeps its order (issue 9). Under load a frame of
# software OpenGL can take longer than a keystroke; the app is stopped (SIGSTOP) while
# xdotool types, so everything typed arrives in one poll, as on the slowest machine.
# Before: text typed right after Ctrl+A was inserted first and then selected with the
# old text (a corpus path became "old path + new path": a CI flake of app_tokenizers).
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display

# during_one_frame COMMAND...: runs the command while the app cannot draw a frame
during_one_frame() {
    kill -STOP "$APP_PID"
    "$@"
    sleep 0.3  # let the X server queue it all before the app polls
    kill -CONT "$APP_PID"
}
replace_text() {  # click the text box, Ctrl+A, type $1
    read -r x y <<<"$(widget_centre text)"
    xdotool mousemove --window "$WID" "$x" "$y" click 1
    xdotool key ctrl+a
    xdotool type --delay 20 "$1"
}

start_app --text "the old text that must go"
check "window appears" test -n "$WID"
wait_state "$(settled 1)"
during_one_frame replace_text "new words"
wait_state "s['text'] == 'new words'"
got=$(json "$STATE" "s['text']")
check "Ctrl+A then typing in one frame replaces the text (got: $got)" test "$got" = "new words"

during_one_frame xdotool key End BackSpace BackSpace BackSpace BackSpace BackSpace BackSpace space t e a
wait_state "s['text'] == 'new tea'"
got=$(json "$STATE" "s['text']")
check "End, six BackSpaces and typing in one frame edit in order (got: $got)" test "$got" = "new tea"
check "the run follows the text" wait_state "$(settled) and s['tokens'] == ['new', 'tea']"

# A click right after typing waits for the typed text: a path typed, then Load clicked, in
# one frame (before: the click overtook the held-back characters, and half a path loaded:
# a CI flake of app_tokenizers under load).
CORPUS="$WORK/corpus.txt"
echo "the new tea" >"$CORPUS"
read -r x y <<<"$(widget_centre tokenizer_simple)"
click "$x" "$y"
wait_state "s['tokenizer'] == 'simple' and 'corpus_load' in s['widgets']"
activate corpus
read -r lx ly <<<"$(widget_centre corpus_load)"
# (The pointer is read once a frame, so the field was clicked in a frame of its own.)
type_then_load() {
    xdotool key ctrl+a
    xdotool type --delay 20 "$CORPUS"
    xdotool mousemove --window "$WID" "$lx" "$ly" click 1
}
during_one_frame type_then_load
check "a path typed and Load clicked in one frame loads the whole path" \
    wait_state "s['corpus'] == '$CORPUS' and s['corpus_error'] is None"

during_one_frame xdotool key ctrl+q
deadline=$((SECONDS + HANG))  # a hang bound: LeakSanitizer's check at exit takes seconds
while ((SECONDS <= deadline)); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.1; done
check "Ctrl+Q typed during one frame quits" not kill -0 "$APP_PID"
kill "$APP_PID" 2>/dev/null
wait "$APP_PID"
APP_EXIT=$?
check "exit 0 (got $APP_EXIT)" test "$APP_EXIT" -eq 0
finish
