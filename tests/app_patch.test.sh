#!/bin/bash
# Patching heads from another text in the window (issue 55): the other text typed into the
# patch box shows its token count beside the text's; P over a tile patches its head, a
# right click's menu item another; the patched tiles are framed and the next tokens are the
# CLI's --patch --patch-from run's, the unpatched run's beside them; a text of another
# length is refused in place and the last view stays; "Stop patching" brings back the
# plain run. The heads' effects with each head alone patched are the CLI's --head-effects.
# A link carries the heads and the text (patch=, patch_from=).
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display
text="The state of the Union is strong. The state of the Union is"
other="The state of the Nation is weak. The state of the Nation is"
"$CLI" --model sotu-small --text "$text" --patch 1.1,2.3 --patch-from "$other" >"$WORK/patched.json"
"$CLI" --model sotu-small --text "$text" >"$WORK/plain.json"
ids_of() { json "$1" "[t['id'] for t in s['$2']]"; }
patched=$(ids_of "$WORK/patched.json" next_token)
baseline=$(ids_of "$WORK/patched.json" baseline_next_token)
plain=$(ids_of "$WORK/plain.json" next_token)
prob0=$(json "$WORK/patched.json" "s['next_token'][0]['prob']")
top=$(json "$WORK/plain.json" "s['next_token'][0]['id']")
"$CLI" --model sotu-small --text "$text" --patch-from "$other" --head-effects "prob:$top" >"$WORK/effects.json"
effects=$(json "$WORK/effects.json" "s['head_effects']")
is_patched_run="[t['id'] for t in s['model_run']['next_token']] == $patched
                and abs(s['model_run']['next_token'][0]['prob'] - $prob0) <= 1e-4 * $prob0
                and [t['id'] for t in s['model_run']['baseline_next_token']] == $baseline"

start_app --model sotu-small --text "$text"
check "window appears" test -n "$WID"
check "the model's run arrives, nothing patched" \
    wait_state "$(settled 1) and s['model_run'] is not None and s['model_run']['patched'] == []
                and s['model_run']['patch_tokens'] == -1 and 'patch_from' in s['widgets']"
activate patch_from
type_text "$other"
check "the other text is typed, its 14 tokens counted" \
    wait_state "s['patch_from'] == '$other' and 'patch_tokens' in s['widgets']"
inside="s['heatmaps']['model/1.1']['rect'][1] >= s['viewport'][1] and s['heatmaps']['model/2.3']['rect'][3] <= s['viewport'][3]"
wheel_until "$inside" "s['heatmaps']['model/1.1']['rect'][1]"
check "tiles 1.1 and 2.3 are on screen" wait_state "$inside"
# A click on tile 2.3 shows its pipeline and takes the keys from the box (Escape would
# undo the typing, as in any Dear ImGui text box); then P over it.
read -r x y <<<"$(heatmap_point model/2.3 0.5 0.5)"
click "$x" "$y"
check "the box lets the keys go" wait_state "s.get('active_widget') is None and s['patch_from'] == '$other'"
hold p
check "P over tile 2.3 patches it" wait_state "$(settled) and s['model_run']['patched'] == ['2.3']"
wheel_until "$inside" "s['heatmaps']['model/1.1']['rect'][1]"
read -r x y <<<"$(heatmap_point model/1.1 0.5 0.5)"
xdotool mousemove --window "$WID" "$x" "$y"
frames_pass >/dev/null
xdotool click 3
check "a right click opens the tile's menu" wait_state "s['popup'] and 'patch_head' in s['widgets']"
click_until patch_head "s['model_run'] is not None and s['model_run']['patched'] == ['1.1', '2.3']" "patch head 1.1"
check "heads 1.1 and 2.3 patched: the CLI's --patch 1.1,2.3 --patch-from run, the unpatched run beside" \
    wait_state "$(settled) and s['model_run']['patch_tokens'] == 14 and $is_patched_run"
window_shot "$WORK/patched.png"
# Which heads matter: each head alone patched, the CLI's --head-effects with --patch-from.
wheel_until "s['widgets']['head_effects'][1] >= s['viewport'][1]" "s['widgets']['head_effects'][1]" up
click_until head_effects "s['head_effects'] == 'prob:$top'" "ask which heads matter"
check "the heads' effects: the CLI's --head-effects prob:$top, each head patched, drawn" \
    wait_state "$(settled) and s['model_run']['head_effects'] is not None and s['model_run']['head_effects']['patched']
                and len(s['model_run']['head_effects']['values']) == len($effects) and all(
                abs(a - b) <= 1e-5 for ra, rb in zip(s['model_run']['head_effects']['values'], $effects) for a, b in zip(ra, rb))
                and 'head_effects' in s['heatmaps']"
click_until head_effects "s['head_effects'] is None" "turn the heads' effects off"
wheel_until "'patch_from' in s['widgets'] and s['widgets']['patch_from'][1] >= s['viewport'][1]" \
    "s['widgets']['patch_from'][1]" up
activate patch_from
hold ctrl+a
type_text "Too short"
check "a text of another length: refused in place, the patched run stays" \
    wait_state "s['patch_from'] == 'Too short' and s['error'] is not None and 'as many tokens' in s['error']
                and s['model_run']['patched'] == ['1.1', '2.3'] and $is_patched_run"
click_until stop_patching "s['patch'] is None" "stop patching"
check "stop patching: the CLI's plain run" \
    wait_state "$(settled) and s['model_run']['patched'] == [] and [t['id'] for t in s['model_run']['next_token']] == $plain"
quit_app
check "the app quits cleanly" test "$APP_EXIT" = 0

start_app --model sotu-small --text "$text" --patch 2.3,1.1 --patch-from "$other"
check "--patch and --patch-from (a link's patch= and patch_from=) start with the heads patched" \
    wait_state "$(settled 1) and s['model_run'] is not None and s['model_run']['patched'] == ['1.1', '2.3'] and $is_patched_run"
quit_app
finish
