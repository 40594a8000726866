#!/bin/bash
# Typing fast while runs compute (issue 58). A run of 13 heads of 768 x 1024 takes longer
# than a frame; text typed at xdotool's speed asks for one after another. Before: the
# frames that let the held-back keys through (one change per key a frame, app/keyboard.h)
# were drawn and each waited for its run, so typed text drained at 20 to 35 characters a
# second: it kept arriving, and starting runs, for many seconds after the last key, and
# Escape and F5 pressed after it waited behind it; and an F5 in the frame after Escape
# left the text box was dropped. Now the text, and the keys after it, are in the state
# within a few frames of the last key: counted in frames drawn, never in seconds.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display
KEY_FRAMES=3  # frames drawn after the last key was sent, by which the state must show it

# after_frames PYTHON_EXPR: what the state says of it once $KEY_FRAMES frames were drawn
# after this call (the frames counted, never seconds)
after_frames() {
    frames_pass "$KEY_FRAMES" >/dev/null
    json "$STATE" "bool($1)"
}
# A burst of shifted and plain keys: Shift changes twice for each shifted character, and
# each change of a key waits for a frame of its own.
burst=$(python3 -c "print(''.join('<|endoftext|> Your journey, STEP %d; ' % i for i in range(12)))")

start_app --variant mha-wrapper --heads 13 --d-in 768 --d-out 1024 --dropout 1 --tokenizer gpt2 --size 400x800 \
    --text "Your journey starts with one step"
check "window appears" test -n "$WID"
wait_state "$(settled 1)"
activate text
hold End
before=$(json "$STATE" "s['text']")
xdotool type --delay 5 "$burst"
want=$(python3 -c "import sys; print(repr(sys.argv[1] + sys.argv[2]))" "$before" "$burst")
typed=$(after_frames "s['text'] == $want")
check "${#burst} characters typed while runs compute are in the state $KEY_FRAMES frames after the last key (it has $(json "$STATE" "len(s['text'])") of $((${#before} + ${#burst})))" \
    test "$typed" = true

# With no input the app settles and starts no run: six frames drawn while idle, and the
# run and error stay the run of the whole text.
check "the app settles after the typing" wait_state "$(settled) and s['tokens'] and s['error'] is None"
version=$(json "$STATE" "s['run_version']")
frames_pass 6 >/dev/null
now=$(json "$STATE" "[s['run_version'], s['computing']]")
check "no run starts without input (run $version before six idle frames; run and computing after: $now)" \
    test "$now" = "[$version, false]"

# Keys pressed right after a burst, while its runs compute, are taken at once: Escape
# leaves the text box, F5 turns presenter mode on.
xdotool type --delay 5 "$burst"
xdotool key Escape F5
taken=$(after_frames "s['presenter'] and s['active_widget'] is None")
check "Escape and F5 pressed right after a burst are taken within $KEY_FRAMES frames (presenter $(json "$STATE" \
    "s['presenter']"), keys held by $(json "$STATE" "s['active_widget']"))" test "$taken" = true
quit_app
finish
