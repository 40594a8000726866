#!/bin/bash
# Switching heads off in the window (issue 55): a right click on a tile opens its menu,
# whose item switches the head off; X over another tile does the same; the switched tiles
# are outlined, the next tokens are the CLI's --ablate run's with the run with every head
# on beside them; Generate is disabled while heads are off; "Switch every head back on"
# brings back the CLI's plain run. The logit lens's checkbox shows what each layer would
# say: the CLI's --logit-lens at the positions shown; the attribution's checkbox splits the
# top token's logit into its parts: the CLI's --attribute. A link carries the heads
# (ablate=...), the lens (logit_lens=1) and the attribution (attribute=ID).
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display
text="The state of the Union is strong. The state of the Union is"
# The CLI's numbers first, before the window takes the cores.
"$CLI" --model sotu-small --text "$text" --ablate 1.1,2.3 >"$WORK/ablated.json"
"$CLI" --model sotu-small --text "$text" --stages weights >"$WORK/plain.json"
ids_of() { json "$1" "[t['id'] for t in s['$2']]"; }
ablated=$(ids_of "$WORK/ablated.json" next_token)
baseline=$(ids_of "$WORK/ablated.json" baseline_next_token)
plain=$(ids_of "$WORK/plain.json" next_token)
prob0=$(json "$WORK/ablated.json" "s['next_token'][0]['prob']")
"$CLI" --model sotu-small --text "$text" --logit-lens >"$WORK/lens.json"
"$CLI" --model sotu-small --text "$text" --ablate 1.1,2.3 --logit-lens >"$WORK/ablated_lens.json"
# [entry][position]: the most probable token's id and probability.
lens_top() { json "$1" "[[[p[0]['id'], p[0]['prob']] for p in e] for e in s['logit_lens']]"; }
lens=$(lens_top "$WORK/lens.json")
top=$(json "$WORK/plain.json" "s['next_token'][0]['id']")
"$CLI" --model sotu-small --text "$text" --attribute "$top" >"$WORK/attribution.json"
parts=$(json "$WORK/attribution.json" "[[c['name'], c['value']] for c in s['attribution']['components']]")
logit=$(json "$WORK/attribution.json" "s['attribution']['logit']")
# The state's parts are the CLI's: names in order, values within 1e-4 of the logit's scale.
attribution_is() {
    echo "s['model_run'] is not None and s['model_run']['attribution'] is not None
          and s['model_run']['attribution']['id'] == $top and abs(s['model_run']['attribution']['logit'] - $logit) <= 1e-4 * abs($logit)
          and [c['name'] for c in s['model_run']['attribution']['components']] == [p[0] for p in $parts]
          and all(abs(c['value'] - p[1]) <= 1e-4 * abs($logit) for c, p in zip(s['model_run']['attribution']['components'], $parts))"
}
ablated_lens=$(lens_top "$WORK/ablated_lens.json")
# The state's lens is the CLI's at its positions: ids exactly, probabilities within 1e-4.
lens_is() {
    echo "s['model_run'] is not None and len(s['model_run']['logit_lens']['entries']) == len($1) and all(
          c[0]['id'] == $1[e][p][0] and abs(c[0]['prob'] - $1[e][p][1]) <= 1e-4
          for e, row in enumerate(s['model_run']['logit_lens']['entries'])
          for p, c in zip(s['model_run']['logit_lens']['positions'], row))"
}

start_app --model sotu-small --text "$text"
check "window appears" test -n "$WID"
check "the model's run arrives, no head switched off" \
    wait_state "$(settled 1) and s['model_run'] is not None and s['model_run']['switched_off'] == []
                and s['model_run']['baseline_next_token'] == [] and 'model/1.1' in s['heatmaps']"

# The grid is below the next tokens: the wheel over the view brings tiles 1.1 and 2.3 into sight.
inside="s['heatmaps']['model/1.1']['rect'][1] >= s['viewport'][1] and s['heatmaps']['model/2.3']['rect'][3] <= s['viewport'][3]"
wheel_until "$inside" "s['heatmaps']['model/1.1']['rect'][1]"
check "tiles 1.1 and 2.3 are on screen" wait_state "$inside"

# Right click on tile 1.1, then the menu's item.
read -r x y <<<"$(heatmap_point model/1.1 0.5 0.5)"
xdotool mousemove --window "$WID" "$x" "$y"
frames_pass >/dev/null
xdotool click 3
check "a right click opens the tile's menu" wait_state "s['popup'] and 'switch_head' in s['widgets']"
click_until switch_head "s['model_run'] is not None and s['model_run']['switched_off'] == ['1.1']" "switch head 1.1 off"
# X over tile 2.3, in sight again: the line naming 1.1 above the grid moved it down.
wheel_until "s['heatmaps']['model/2.3']['rect'][3] <= s['viewport'][3]" "s['heatmaps']['model/2.3']['rect'][1]"
read -r x y <<<"$(heatmap_point model/2.3 0.5 0.5)"
xdotool mousemove --window "$WID" "$x" "$y"
frames_pass >/dev/null
hold x
check "X over tile 2.3 switches it off too: the CLI's --ablate 1.1,2.3 run" \
    wait_state "$(settled) and s['model_run']['switched_off'] == ['1.1', '2.3']
                and [t['id'] for t in s['model_run']['next_token']] == $ablated
                and abs(s['model_run']['next_token'][0]['prob'] - $prob0) <= 1e-4 * $prob0
                and [t['id'] for t in s['model_run']['baseline_next_token']] == $baseline"
window_shot "$WORK/switched_off.png"
# The line naming them is above the tiles: back up to it.
wheel_until "'all_heads_on' in s['widgets'] and s['widgets']['all_heads_on'][1] >= s['viewport'][1]" \
    "s['widgets']['all_heads_on'][1]" up
check "the switched heads are named, with the way back" wait_state "'switched_off' in s['widgets'] and 'all_heads_on' in s['widgets']"
click_until all_heads_on "s['model_run'] is not None and s['model_run']['switched_off'] == []" "switch every head back on"
check "every head back on: the CLI's plain run" \
    wait_state "$(settled) and [t['id'] for t in s['model_run']['next_token']] == $plain and s['model_run']['baseline_next_token'] == []"
check "no logit lens until asked" wait_state "s['model_run']['logit_lens']['entries'] == [] and 'logit_lens' in s['widgets']"
click_until logit_lens "s['logit_lens']" "turn the logit lens on"
check "the logit lens: the CLI's --logit-lens, every layer at every position" \
    wait_state "$(settled) and $(lens_is "$lens") and s['model_run']['logit_lens']['positions'] == list(range(len($lens[0])))
                and 'logit_lens_grid' in s['widgets']"
window_shot "$WORK/logit_lens.png"
wheel_until "s['widgets']['attribute'][3] <= s['viewport'][3]" "s['widgets']['attribute'][1]"
click_until attribute "s['attribute'] == '$top'" "ask for the top token's logit split into its parts"
check "the logit's parts: the CLI's --attribute $top, the bars drawn" \
    wait_state "$(settled) and $(attribution_is) and 'attribution_bars' in s['widgets']"
window_shot "$WORK/attribution.png"
quit_app
check "the app quits cleanly" test "$APP_EXIT" = 0

# A link carries the switched heads.
start_app --model sotu-small --text "$text" --attribute "$top"
check "--attribute (a link's attribute=) starts with the parts shown" wait_state "$(settled 1) and $(attribution_is)"
quit_app
start_app --model sotu-small --text "$text" --ablate 2.3,1.1 --logit-lens
check "--ablate and --logit-lens (a link's ablate= and logit_lens=) start with the heads off and the lens on" \
    wait_state "$(settled 1) and s['model_run'] is not None and s['model_run']['switched_off'] == ['1.1', '2.3']
                and [t['id'] for t in s['model_run']['next_token']] == $ablated and $(lens_is "$ablated_lens")"
quit_app
finish
