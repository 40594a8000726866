#!/bin/bash
# Every step of every lesson in assets/lessons loads and renders (issue 5): one app start
# tours them all (--lesson-tour), screenshotting each step; then a lesson is entered with
# --lesson and stepped with held arrow keys, as a student would.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display
LESSONS="$TESTS/../assets/lessons"

# --- the tour: every step, its screenshot and its state ---
# The lesson on a real model (open-model.json) runs on HuggingFaceTB/SmolLM2-135M from the
# Hugging Face cache: here a tiny stand-in (tiny_llama_hub.sh), so that it is toured too.
source "$TESTS/tiny_llama_hub.sh"
export HF_HUB_CACHE="$WORK/hub"
tiny_llama_hub "$HF_HUB_CACHE" HuggingFaceTB/SmolLM2-135M >/dev/null
TOUR="$WORK/tour"
"$APP" --lesson-tour "$TOUR" >"$WORK/tour.log" 2>&1
tour_exit=$?
check "the lesson tour exits 0" test $tour_exit -eq 0
# A failure says why: the tour's own output (an ASan run once aborted after all 38 steps).
[ $tour_exit -eq 0 ] || tail -40 "$WORK/tour.log"
expected=$(python3 -c '
import glob, json, sys
print(sum(len(json.load(open(f))["steps"]) for f in glob.glob(sys.argv[1] + "/*.json")))' "$LESSONS")
check "the tour visited all $expected steps" test "$(json "$TOUR/tour.json" "len(s)")" = "$expected"
check "every step: lesson id, step, title and text, no error" python3 -c '
import glob, json, sys
tour = json.load(open(sys.argv[1]))
lessons = {}
for f in glob.glob(sys.argv[2] + "/*.json"):
    l = json.load(open(f))
    lessons[l["id"]] = l
bad = []
for e in tour:
    l = e["lesson"]
    step = lessons[l["id"]]["steps"][l["step"] - 1]
    where = "%s step %d" % (l["id"], l["step"])
    if e["error"] is not None: bad.append(where + ": error " + str(e["error"]))
    if l["title"] != step["title"]: bad.append(where + ": title " + l["title"])
    if len(l["text"]) < 40 or "{" in l["text"]: bad.append(where + ": text " + l["text"][:60])
    if not l["active"]: bad.append(where + ": not in the lesson")
    if step.get("compare") and e["compare"] != step["compare"]: bad.append(where + ": compare " + str(e["compare"]))
print("\n".join(bad)); sys.exit(1 if bad else 0)' "$TOUR/tour.json" "$LESSONS"
# A blank window compresses to a few kB; the colour count (slow in pure Python) is
# checked on a few steps: plain, a comparison and the last.
small=$(find "$TOUR" -name '*.png' -size -30k -printf '%f ')
check "every step's screenshot holds a drawn window" test -z "$small" -a "$(ls "$TOUR"/*.png | wc -l)" = "$expected"
for png in 3.3.1-step2 3.5.1-step5 cross-step4 open-model-step1; do
    check "$png screenshot is non-blank" $PNG nonblank "$TOUR/$png.png"
done

# --- without its model: the lesson is listed with how to get it, --lesson says so ---
export HF_HUB_CACHE="$WORK/empty-hub"
mkdir -p "$HF_HUB_CACHE"
"$APP" --lesson open-model --state-out "$WORK/missing.json" >"$WORK/missing.out" 2>"$WORK/missing.err"
missing_exit=$?
check "--lesson open-model without its model exits 2 with one line naming how to get it" \
    test $missing_exit -eq 2 -a "$(wc -l <"$WORK/missing.err")" -eq 1 -a \
    "$(grep -c 'lesson open-model needs HuggingFaceTB/SmolLM2-135M from the Hugging Face cache: attnscope-cli --model HuggingFaceTB/SmolLM2-135M downloads it' "$WORK/missing.err")" -eq 1
start_app
wait_state "$(settled)"
check "the state lists the lesson whose model is missing" \
    test "$(json "$STATE" "s['lessons_missing_model']")" = '[{"id": "open-model", "model": "HuggingFaceTB/SmolLM2-135M"}]'
quit_app
unset HF_HUB_CACHE

# --- one lesson by keyboard ---
start_app --lesson 3.5.1
wait_state "$(settled) and s['lesson']['step'] == 1"
check "--lesson starts at step 1" test "$(json "$STATE" "s['lesson']['id']")" = 3.5.1
# The view scrolls to the step's stage in the frames after the run arrives.
check "the step's stage is highlighted in view" wait_state "s['heatmaps'].get('weights', {}).get('visible')"
# Step 1 outlines two cells of "journey"'s row; the state file says where, and where the
# view's visible pane is (presenter mode will be checked against it for every step).
check "the step's two cells are reported, inside the view's visible pane" \
    wait_state "len(s['highlight']) == 2 and all(v[0] <= r[0] and r[2] <= v[2] and v[1] <= r[1] and r[3] <= v[3] for v in [s['viewport']] for r in s['highlight'])"
hold Right
check "Right goes to step 2 (mask after softmax)" \
    wait_state "s['lesson']['step'] == 2 and s['compare'] == 'masking' and s['tab'] == 'compare'"
check "step 2 fills its numbers from the run" wait_state "'—' not in s['lesson']['text'] and '0.' in s['lesson']['text']"
hold Right
hold Right
check "Right twice more: step 4, -inf before softmax, back in the pipeline" \
    wait_state "s['lesson']['step'] == 4 and s['tab'] == 'pipeline' and s['causal']"
hold Left
check "Left goes back to step 3" wait_state "s['lesson']['step'] == 3"
# Keystrokes quicker than a frame (xdotool key: down and up at once) are not lost.
xdotool key Right
check "a quick Right goes to step 4" wait_state "s['lesson']['step'] == 4"
xdotool key Left
check "a quick Left goes back to step 3" wait_state "s['lesson']['step'] == 3"
quit_app
check "the app quits cleanly" test "$APP_EXIT" -eq 0

# --- a lesson on the shipped model: its run arrives under a shorter view, and the view still
# scrolls its step's stage into sight (it stopped part-way, the weights below the fold) ---
start_app --lesson 5.5
check "lesson 5.5's weights are drawn wholly in view" wait_state "$(settled) and s['lesson']['step'] == 1 and \
(lambda r, v: v[1] - 0.5 <= r[1] and r[3] <= v[3] + 0.5)(s['heatmaps']['weights']['rect'], s['viewport'])"
quit_app

# --- --lesson-step and bad lesson flags ---
headless "$APP" --lesson 3.6.1 --lesson-step 2 --state-out "$WORK/s.json" --screenshot "$WORK/s.png" >/dev/null 2>&1
check "--lesson-step 2 shows step 2 with head 2 selected" \
    test "$(json "$WORK/s.json" "[s['lesson']['step'], s['selected_head'], s['lesson']['error']]")" = "[2, 1, null]"
"$APP" --lesson 9.9.9 >"$WORK/bad.out" 2>&1
check "an unknown lesson exits 2 with one line" test $? -eq 2 -a "$(wc -l <"$WORK/bad.out")" -eq 1
finish
