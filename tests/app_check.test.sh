#!/bin/bash
# File > Check my attention code… in the real window (issue 57): modules recorded through the
# recorder the CLI prints (scripts/attnscope_record.py) with Debian's PyTorch. The book's
# MultiHeadAttention with its scores divided by √d_in opens on the Check tab at its first
# differing stage (weights) and head with the CLI's report and diagnosis; the user's weights,
# attnscope's and their difference are drawn side by side, and every cell beyond the tolerance
# is outlined: as many as PyTorch's own correct module says differ (counted here with torch).
# Another stage is one click away; a file that is not a record is refused in the dialog with
# the check kept; `--check FILE` opens a correct module's check ("every recorded stage
# matches"), and a bad one exits 2 in one line. CHECK_SHOTS=DIR keeps the screenshots there.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display

"$CLI" --print-recorder >"$WORK/attnscope_record.py"
if ! PYTHONPATH="$WORK:$TESTS/check:$TESTS/golden:$TESTS/../scripts" python3 - "$WORK" >"$WORK/count" 2>"$WORK/err" <<'PY'; then
import sys
import torch
import attnscope_record
from book_gpt import MultiHeadAttention
from buggy_attention import BuggyMultiHeadAttention

out = sys.argv[1]
inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]).unsqueeze(0)
torch.manual_seed(123)
buggy = BuggyMultiHeadAttention(3, 6, 6, 0.0, num_heads=3, bug="scale_d_in").eval()
attnscope_record.record(buggy, inputs, f"{out}/buggy.safetensors")
torch.manual_seed(123)
attnscope_record.record(MultiHeadAttention(3, 6, 6, 0.0, num_heads=3).eval(), inputs, f"{out}/good.safetensors")

# The cells of the first differing head's weights beyond 1e-5 of the stage's scale, from
# the book's correct module with the same parameters: what the view must outline.
def weights(module):
    seen = {}
    hook = module.dropout.register_forward_hook(lambda m, i, o: seen.setdefault("w", i[0]))
    with torch.no_grad():
        module(inputs)
    hook.remove()
    return seen["w"][0]
right = MultiHeadAttention(3, 6, 6, 0.0, num_heads=3).eval()
right.load_state_dict(buggy.state_dict())
theirs, ours = weights(buggy), weights(right)
far = (theirs - ours).abs() > 1e-5 * ours.abs().max()
head = int(far.flatten(1).any(1).nonzero()[0])
print(head, int(far[head].sum()))
PY
    fail "recording the modules: $(tail -3 "$WORK/err")"
    finish
    exit 1
fi
read -r head cells <"$WORK/count"
"$CLI" --check "$WORK/buggy.safetensors" --json >"$WORK/cli.json"

start_app --text "Your journey starts with one step"
wait_state "$(settled 1)" >/dev/null
file_menu_dialog menu_check "Check my attention code"
type_path "$WORK/buggy.safetensors"
check "the record opens on the Check tab at its first differing stage and head" \
    wait_state "s['dialog'] is None and s['tab'] == 'check' and s['check_view'] is not None and \
s['check_view']['stage'] == 'weights' and s['check_view']['head'] == $head"
check "the stages compared, in the order the data flows" \
    test "$(json "$STATE" "s['check_view']['stages']")" = '["queries", "keys", "values", "weights"]'
check "the CLI's report, its diagnosis too" test "$(json "$STATE" "s['check_view']['report']")" = \
    "$("$CLI" --check "$WORK/buggy.safetensors")"
check "the diagnosis: √d_in for the head's √head_dim" grep -q "(d_in) instead of the head's" <(json "$STATE" "s['check_view']['report']")
check "yours, attnscope's and the difference side by side, each 6 x 6" python3 - "$STATE" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
maps = [s["heatmaps"][k] for k in ("check/yours", "check/attnscope", "check/difference")]
assert all(m["visible"] and m["rows"] == 6 and m["cols"] == 6 for m in maps), maps
tops = [m["rect"][1] for m in maps]
lefts = [m["rect"][0] for m in maps]
assert max(tops) - min(tops) < 2 and lefts == sorted(lefts) and maps[0]["rect"][2] < maps[1]["rect"][0], (tops, lefts)
PY
check "the cells PyTorch's module says differ ($cells) are outlined on each" python3 - "$STATE" "$cells" <<'PY'
import json, sys
s, cells = json.load(open(sys.argv[1])), int(sys.argv[2])
v = s["check_view"]
assert v["differing"] == cells and v["outlined"] == cells, v
for k in ("check/yours", "check/attnscope", "check/difference"):
    assert len(s["heatmaps"][k].get("marked", [])) == cells, (k, s["heatmaps"][k])
PY
first_row=$(json "$WORK/cli.json" "s['first_difference']['row']")
first_col=$(json "$WORK/cli.json" "s['first_difference']['column']")
check "the CLI's first cell ($first_row, $first_col) is one of them" python3 - "$STATE" "$first_row" "$first_col" <<'PY'
import json, sys
s, row, col = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
m = s["heatmaps"]["check/difference"]
x0, y0 = m["rect"][0] + (col + 0.5) * m["cell"][0], m["rect"][1] + (row + 0.5) * m["cell"][1]
assert any(r[0] <= x0 <= r[2] and r[1] <= y0 <= r[3] for r in m.get("marked", [])), (x0, y0, m)
PY
window_shot "$WORK/check.png"
[ -n "${CHECK_SHOTS:-}" ] && cp "$WORK/check.png" "$CHECK_SHOTS/check_weights.png"
check "the window is drawn" $PNG nonblank "$WORK/check.png"

click_until check_stage_queries "s['check_view']['stage'] == 'queries'" "show the queries"
check "the queries match: nothing outlined" wait_state "s['check_view']['differing'] == 0 and 'marked' not in s['heatmaps']['check/yours']"
[ -n "${CHECK_SHOTS:-}" ] && frames_pass >/dev/null && window_shot "$CHECK_SHOTS/check_queries.png"

# A file that is not a record: said in the dialog, the check on screen kept.
printf 'not a record' >"$WORK/junk.safetensors"
file_menu_dialog menu_check "Check my attention code"
type_path "$WORK/junk.safetensors"
check "a file that is not a record is refused in the dialog" \
    wait_state "s['dialog'] is not None and s['dialog']['error'] is not None and 'junk.safetensors' in s['dialog']['error']"
hold Escape
check "the last check stays on screen" \
    wait_state "s['dialog'] is None and s['check_view'] is not None and s['check_view']['path'].endswith('buggy.safetensors')"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0

start_app --check "$WORK/good.safetensors"
check "--check FILE: the book's module, every recorded stage matches" \
    wait_state "s['tab'] == 'check' and s['check_view'] is not None and s['check_view']['matches'] and \
'every recorded stage matches' in s['check_view']['report'] and s['check_view']['differing'] == 0"
window_shot "$WORK/good.png"
[ -n "${CHECK_SHOTS:-}" ] && cp "$WORK/good.png" "$CHECK_SHOTS/check_good.png"
quit_app

"$APP" --check "$WORK/junk.safetensors" >/dev/null 2>"$WORK/err"
code=$?
check "--check with a file that is not a record: exit 2, one line" \
    test "$code" -eq 2 -a "$(wc -l <"$WORK/err")" -eq 1
check "that line names the file" grep -q -- "--check: .*junk.safetensors" "$WORK/err"
finish
