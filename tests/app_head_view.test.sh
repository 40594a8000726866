#!/bin/bash
# The head view (issue 35) driven as a reader would, on the shipped 4-layer x 8-head model:
# it opens on one layer with the shown head's lines alone (all eight at once are a blur);
# the layer list picks another layer (its lines are the CLI's weights of that layer);
# All, None and each head's toggle switch lines on and off, a right click shows one head
# alone; hovering a token keeps only its lines; the model view shows every layer x head
# as a thumbnail of lines, and a click on one opens that head. Then a chapter 3 module's
# two heads start with both on. Everything is checked in the state file's "head_view".
# HEAD_VIEW_SHOTS=DIR keeps screenshots there.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display
text="The state of the Union is strong and the people"
# Lines are drawn for weights over 0.01: as many as the CLI's every head's weights say.
"$CLI" --model sotu-small --text "$text" --stages weights >"$WORK/cli.json"
lines_of() {  # lines_of LAYER HEAD: how many of that head's weights the view draws as lines
    json "$WORK/cli.json" "sum(v > 0.01 for row in s['layers'][$1]['heads'][$2]['weights'] for v in row)"
}
lines_2_0=$(lines_of 2 0)
lines_3_5=$(lines_of 3 5)
shot() { [ -n "$HEAD_VIEW_SHOTS" ] && mkdir -p "$HEAD_VIEW_SHOTS" && window_shot "$HEAD_VIEW_SHOTS/$1.png"; true; }
hv="s['head_view']"
step() { click_until "$1" "$2" "$3" && pass "a click to $3"; }  # step WIDGET PYTHON_EXPR WHAT
only() { echo "$hv['heads'] == [h in ($*,) for h in range(8)]"; }  # only H...: those heads switched on

start_app --model sotu-small --text "$text" --tab head-view
check "the head view opens on layer 0 with the shown head's lines alone" \
    wait_state "$(settled 1) and s['error'] is None and $hv is not None and $hv['layers'] == 4 and $hv['layer'] == 0
                and $(only 0) and $hv['line_heads'] == [0] and not $hv['model_view']"
shot opened

read -r x y <<<"$(widget_centre head_view_layer)"
click "$x" "$y"
check "the layer list opens" wait_state "'head_view_layer_2' in s['widgets']"
pick_entry head_view_layer_2
check "layer 2 chosen: head 2.0's lines, as many as the CLI's weights over 0.01" \
    wait_state "$hv['layer'] == 2 and $(only 0) and $hv['line_heads'] == [0] and $hv['lines'] == $lines_2_0"

step head_view_all "$hv['heads'] == [True] * 8 and $hv['line_heads'] == list(range(8))" "switch every head on"
shot all-heads
step head_view_none "$hv['heads'] == [False] * 8 and $hv['lines'] == 0" "switch every head off"
step head_view_head_3 "$(only 3) and $hv['line_heads'] == [3]" "switch head 2.3 on"
step head_view_head_5 "$(only 3, 5) and $hv['line_heads'] == [3, 5]" "switch head 2.5 on too"
step head_view_head_3 "$(only 5) and $hv['line_heads'] == [5]" "switch head 2.3 off again"
read -r x y <<<"$(widget_centre head_view_head_6)"
xdotool mousemove --window "$WID" "$x" "$y"
frames_pass >/dev/null
xdotool click 3
check "a right click on head 2.6 shows it alone" wait_state "$(only 6) and $hv['line_heads'] == [6]"
step head_view_all "$hv['heads'] == [True] * 8" "switch every head on again"

read -r x y <<<"$(widget_centre head_view_query_4)"
xdotool mousemove --window "$WID" "$x" "$y"
check "hovering query 'Union' (4) keeps its lines alone, of every head" \
    wait_state "$hv['hovered_query'] == 4 and $hv['line_queries'] == [4] and $hv['line_heads'] == list(range(8))
                and max($hv['line_keys']) <= 4"
shot hover-query
read -r x y <<<"$(widget_centre head_view_key_1)"
xdotool mousemove --window "$WID" "$x" "$y"
check "hovering key 'state' (1) keeps the lines into it alone" \
    wait_state "$hv['hovered_key'] == 1 and $hv['hovered_query'] == -1 and $hv['line_keys'] == [1]
                and min($hv['line_queries']) >= 1"

step head_view_model_view "$hv['model_view'] and 'head_thumb/3.5' in s['widgets']" "open the model view"
check "the model view has a thumbnail for each of the 4 x 8 heads" \
    wait_state "sum(k.startswith('head_thumb/') for k in s['widgets']) == 32"
check "thumbnail 3.5 lies in the view" \
    wait_state "s['widgets']['head_thumb/3.5'][3] <= s['viewport'][3] and s['widgets']['head_thumb/3.5'][2] <= s['viewport'][2]"
shot model-view
step "head_thumb/3.5" "not $hv['model_view']" "open head 3.5"
check "a click on thumbnail 3.5 opens layer 3 with head 5 alone: the CLI's lines" \
    wait_state "$hv['layer'] == 3 and $(only 5) and $hv['line_heads'] == [5] and $hv['lines'] == $lines_3_5"
shot opened-3.5
check "still running" kill -0 "$APP_PID"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0

start_app --variant mha --heads 2 --tab head-view
check "a chapter 3 module's two heads start with both on, no layer list" \
    wait_state "$(settled 1) and $hv is not None and $hv['layer'] == -1 and $hv['heads'] == [True, True]
                and $hv['line_heads'] == [0, 1] and 'head_view_layer' not in s['widgets']"
step head_view_model_view "'head_thumb/2' in s['widgets']" "open the heads' thumbnails"
step head_thumb/2 "not $hv['model_view'] and $hv['heads'] == [False, True]" "open head 2"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0
finish
