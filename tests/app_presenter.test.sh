#!/bin/bash
# Presenter mode on a classroom projector: every step of every shipped lesson, walked
# with → in the real window, must keep what the step points at on screen: each
# highlighted cell's rectangle inside the view's visible pane (the state file's
# `highlight` and `viewport`), the step's stage drawn wholly inside it, and focus on
# (one stage as large as the screen allows), its cells at least 40 px at 1080 lines
# (27 at 720) when the matrix has at most 8 rows and columns, as the book's examples do;
# and every heatmap on screen readable (tests/app_readable.py: labels turned before they
# are shortened, no number over two lines, the focus matrix filling its view).
# Presenter mode is full screen, so each size is an X screen of its own:
# PRESENTER_SIZES (default: a classroom projector's 1280x720, and 1920x1080).
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
LESSONS="$TESTS/../assets/lessons"

if [ -z "$PRESENTER_SIZE" ]; then
    sizes=${PRESENTER_SIZES:-1280x720 1920x1080}
    status=0
    for size in $sizes; do
        PRESENTER_SIZE=$size ATTNSCOPE_IN_XVFB=1 xvfb-run -a -s "-screen 0 ${size}x24" bash "$0" "$BUILD" || status=1
    done
    exit $status
fi

# The lesson on a real model runs on a tiny stand-in for HuggingFaceTB/SmolLM2-135M.
source "$TESTS/tiny_llama_hub.sh"
export HF_HUB_CACHE="$WORK/hub"
tiny_llama_hub "$HF_HUB_CACHE" HuggingFaceTB/SmolLM2-135M >/dev/null

# "ID STEPS" per shipped lesson, and per step whether it outlines cells or rows;
# PRESENTER_LESSONS="ID ...": those lessons only (the sanitizer build's walk).
lessons=$(python3 -c '
import glob, json, sys
only = sys.argv[2].split()
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    l = json.load(open(f))
    if not only or l["id"] in only:
        print(l["id"], " ".join("1" if s.get("cells") or s.get("rows") else "0" for s in l["steps"]))' \
    "$LESSONS" "${PRESENTER_LESSONS:-}")

inside="all(v[0] - 0.5 <= r[0] and r[2] <= v[2] + 0.5 and v[1] - 0.5 <= r[1] and r[3] <= v[3] + 0.5 \
for v in [s['viewport']] for r in s['highlight'])"
in_view() {  # the rectangle $1 (a Python expression) wholly in view
    echo "(lambda r: r is not None and s['viewport'][0] - 0.5 <= r[0] and r[2] <= s['viewport'][2] + 0.5 and \
s['viewport'][1] - 0.5 <= r[1] and r[3] <= s['viewport'][3] + 0.5)($1)"
}
stage_inside() {  # the step's stage, when the pipeline shows it, is wholly in view; a step on
    # the prediction (next_tokens) shows the next tokens' heading at the view's top, the most
    # probable first under it (at a projector's 720 lines the ten bars go past the view's foot)
    if [ "$1" = next_tokens ]; then
        echo "$(in_view "s['widgets'].get('next_tokens')") and s['widgets']['next_tokens'][1] < s['viewport'][1] + 20"
    else
        echo "s['tab'] != 'pipeline' or $(in_view "s['heatmaps'].get('$1', {}).get('rect')")"
    fi
}
readable() {  # a small matrix's cells large enough for the room to read
    echo "s['tab'] != 'pipeline' or (lambda h: h is None or h['rows'] > 8 or h['cols'] > 8 or \
min(h['cell']) >= 40 * ${PRESENTER_SIZE#*x} / 1080)(s['heatmaps'].get('$1'))"
}
while read -r id marks; do
    start_app --presenter --lesson "$id"
    step=0
    for marked in $marks; do
        step=$((step + 1))
        [ $step -gt 1 ] && hold Right
        where="$id step $step at $PRESENTER_SIZE"
        # The step's run, its layout (the view follows the step) and, when it marks any,
        # its outlines drawn.
        if ! wait_state "s['lesson']['step'] == $step and $(settled) and s['presenter'] and s['focus'] \
and ($marked == 0 or len(s['highlight']) > 0)"; then
            fail "$where: not shown ($(json "$STATE" "[s['lesson'], s['focus'], len(s['highlight'])]"))"
            continue
        fi
        frames_pass 2 >/dev/null  # two more frames: a layout that still moved would show in them
        stage=$(json "$STATE" "s['focus']")
        if ! python3 "$TESTS/app_readable.py" "$STATE" --focus-stage "$stage" >"$WORK/readable.out"; then
            fail "$where: not readable: $(head -5 "$WORK/readable.out" | tr '\n' ';')"
            window_shot "$WORK/presenter-$id-$step-$PRESENTER_SIZE.png"
        fi
        if [ "$(json "$STATE" "bool($inside)")" = true ] &&
            [ "$(json "$STATE" "bool($(stage_inside "$stage"))")" = true ] &&
            [ "$(json "$STATE" "bool($(readable "$stage"))")" = true ]; then
            pass "$where: $(json "$STATE" "len(s['highlight'])") highlighted, all in view, cells \
$(json "$STATE" "s['heatmaps'].get('$stage', {}).get('cell')")"
        else
            fail "$where: off screen or too small: viewport $(json "$STATE" "s['viewport']"), highlight \
$(json "$STATE" "s['highlight']"), $stage $(json "$STATE" "s['heatmaps'].get('$stage', {})")"
            window_shot "$WORK/presenter-$id-$step-$PRESENTER_SIZE.png"
        fi
    done
    quit_app
done <<<"$lessons"
finish
