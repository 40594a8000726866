#!/bin/bash
# The app starts, renders and writes a non-blank screenshot for every variant and
# for a few settings that stress the layout (many heads, UI scale, long text).
source "$(dirname "$0")/app_lib.sh"
need xvfb-run python3

shot() {  # shot NAME FLAGS...
    local name=$1; shift
    local png="$WORK/$name.png"
    if headless "$APP" "$@" --screenshot "$png" --frames 3 >"$WORK/$name.log" 2>&1 && [ -s "$png" ]; then
        check "$name renders a non-blank window" $PNG nonblank "$png"
    else
        fail "$name: exit $? $(tail -2 "$WORK/$name.log")"
    fi
}

for variant in simplified self-v1 self-v2 causal mha-wrapper mha cross; do
    shot "$variant" --variant "$variant"
done
shot cross-two-texts --variant cross --text "the cat sat" --text2 "a dog ran off" --d-in 4
shot mha-12-heads --variant mha --heads 12 --d-in 24 --d-out 24 --dropout 0.1 --qkv-bias --pos \
    --text "one two three four five six seven eight"
shot ui-scale-2 --ui-scale 2 --variant causal --dropout 0.5
shot long-text --variant mha --heads 4 --d-in 16 --d-out 16 \
    --text "$(python3 -c 'print(" ".join(f"w{i}" for i in range(300)))')"

# A long text keeps its chips in a scrolling box: the per-head weights are still on
# the first screen, and the 12 heads wrap into rows inside the view's width.
headless "$APP" --variant mha --heads 12 --d-in 24 --d-out 24 --state-out "$WORK/long.json" \
    --text "$(python3 -c 'print(" ".join(f"w{i}" for i in range(256)))')" --screenshot "$WORK/long.png" >/dev/null 2>&1
check "256 tokens: all 256 chips listed" test "$(json "$WORK/long.json" "len(s['chips'])")" = 256
HEADS="[v for k, v in s['heatmaps'].items() if k.startswith('heads/')]"
check "256 tokens: every head's weights on the first screen" test "$(json "$WORK/long.json" "
len($HEADS) == 12 and all(v['visible'] and v['rect'][3] <= s['framebuffer'][1] for v in $HEADS)")" = true
check "12 heads wrap inside the window's width" test "$(json "$WORK/long.json" "
max(v['rect'][2] for v in $HEADS) <= s['framebuffer'][0] - 10 and len({v['rect'][1] for v in $HEADS}) > 1")" = true

# The pipeline's own weight and masked-score heatmaps, scrolled into view, are drawn
# with the colour map at the engine's values; masked scores are striped.
FLAGS=(--variant causal --text "Your journey starts with one step")
headless "$APP" "${FLAGS[@]}" --show-stage weights --state-out "$WORK/p.json" --screenshot "$WORK/p.png" >/dev/null 2>&1
"$CLI" "${FLAGS[@]}" --stages weights >"$WORK/p-trace.json"
check "pipeline weights are in view" test "$(json "$WORK/p.json" "s['heatmaps']['weights']['visible']")" = true
for cell in "1 0" "3 2" "5 5"; do
    read -r r c <<<"$cell"
    value=$(json "$WORK/p-trace.json" "s['heads'][0]['weights'][$r][$c]")
    expected=$($PNG colormap sequential "$value" 0 1)
    read -r px py <<<"$($PNG cell "$WORK/p.json" weights "$r" "$c")"
    # Cell values are printed in the middle of big cells: sample near a corner.
    cw=$(json "$WORK/p.json" "int(s['heatmaps']['weights']['cell'][0])")
    actual=$($PNG pixel "$WORK/p.png" $((px - cw / 2 + 4)) $((py - cw / 2 + 4)))
    check "pipeline weight [$r,$c] = $value drawn as ($expected), got ($actual)" python3 -c "
import sys; a=list(map(int,'$actual'.split())); e=list(map(int,'$expected'.split()))
sys.exit(0 if len(a) == len(e) == 3 and all(abs(p-q) <= 3 for p, q in zip(a, e)) else 1)"
done
if [ "$(json "$WORK/p.json" "s['heatmaps']['masked_scores']['visible']")" = true ]; then
    box=$(json "$WORK/p.json" "' '.join(str(int(v)) for v in [s['heatmaps']['masked_scores']['rect'][0] + 5 * s['heatmaps']['masked_scores']['cell'][0], s['heatmaps']['masked_scores']['rect'][1], s['heatmaps']['masked_scores']['rect'][0] + 6 * s['heatmaps']['masked_scores']['cell'][0], s['heatmaps']['masked_scores']['rect'][1] + 8])")
    check "masked score [0,5] is striped" $PNG masked "$WORK/p.png" $box
else
    fail "masked scores are not in view"
fi

# The head view (--tab head-view): the line from query q to key k has the weight as
# its opacity over white; masked pairs have no line. Points are taken a quarter of
# the way across, where no other line of a 6-token causal head passes.
FLAGS=(--variant causal --text "Your journey starts with one step")
headless "$APP" "${FLAGS[@]}" --tab head-view --state-out "$WORK/hv.json" --screenshot "$WORK/hv.png" >/dev/null 2>&1
check "--tab head-view opens the head view" test "$(json "$WORK/hv.json" "s['tab']")" = head-view
at_quarter() {  # at_quarter Q K: the pixel a quarter of the way along the line from query Q to key K
    json "$WORK/hv.json" "' '.join(str(round(v)) for v in (lambda x0, y0, x1, y1: (x0 + (x1 - x0) / 4,
        y0 + (y1 - y0) / 6 * (0.5 + $1 + ($2 - $1) / 4)))(*s['widgets']['head_view_lines']))"
}
for pair in "0 0" "1 0" "1 1" "0 5" "1 2"; do
    read -r q k <<<"$pair"
    w=$(json "$WORK/p-trace.json" "s['heads'][0]['weights'][$q][$k]")
    expected=$(python3 -c "print(' '.join(str(round($w * c + (1 - $w) * 255)) for c in (0, 114, 178)))")
    actual=$($PNG pixel "$WORK/hv.png" $(at_quarter "$q" "$k"))
    check "head view: query $q to key $k (weight $w) drawn as ($expected), got ($actual)" python3 -c "
import sys; a=list(map(int,'$actual'.split())); e=list(map(int,'$expected'.split()))
sys.exit(0 if len(a) == len(e) == 3 and all(abs(p-q) <= 6 for p, q in zip(a, e)) else 1)"
done

# Unknown flags are refused with one line and exit 2, before any window opens.
"$APP" --no-such-flag >"$WORK/bad.out" 2>&1
code=$?
check "unknown flag exits 2" test "$code" -eq 2
check "unknown flag says so in one line" test "$(wc -l <"$WORK/bad.out")" -eq 1
finish
