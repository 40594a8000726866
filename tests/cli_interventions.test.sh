#!/usr/bin/env bash
# attnscope-cli's interventions (issue 55) as a user runs them: the JSON's keys on a
# GPT-2-shaped and a Llama-family model (the numbers are test_interventions.cpp's, against
# PyTorch's hooks), and every bad request refused: exit 2, one line on stderr, nothing on
# stdout.
# Usage: tests/cli_interventions.test.sh BUILD_DIR   (ctest passes the build directory)
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cli_lib.sh" "${1:-}"
qwen="$here/golden/llama/qwen2-bias-f16-shards"
text="The state of the Union is strong. The state of the Union is"

# keys_of NAME EXPECTED_KEYS ARGS...: a run whose JSON has exactly these intervention keys
keys_of() {
    local name=$1 keys=$2
    shift 2
    if ! "$cli" "$@" >"$tmp/out.json" 2>"$tmp/err"; then fail "$name" "attnscope-cli failed"; return; fi
    if why=$(python3 - "$tmp/out.json" "$keys" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = set(sys.argv[2].split())
extra = {"baseline_next_token", "intervention", "logit_lens", "attribution", "head_effects", "head_effects_metric"}
got = set(d) & extra
assert got == want, f"keys {sorted(got)}, expected {sorted(want)}"
L, H = d["model"]["n_layer"], d["model"]["n_head"]
if "logit_lens" in d:
    assert len(d["logit_lens"]) == L + 1 and all(len(e) == len(d["token_ids"]) for e in d["logit_lens"])
    assert all(len(p) == 5 for e in d["logit_lens"] for p in e), "5 tokens a position"
    assert d["logit_lens"][-1][d["next_token_position"]][0]["id"] == d["next_token"][0]["id"], "the last entry is the model's own"
if "head_effects" in d:
    assert len(d["head_effects"]) == L and all(len(r) == H for r in d["head_effects"])
if "attribution" in d:
    a = d["attribution"]
    total = sum(c["value"] for c in a["components"])
    assert abs(total - a["logit"]) <= 1e-4 * max(1.0, abs(a["logit"])), f"components add to {total}, logit {a['logit']}"
PY
    ); then
        echo "ok:   $name"
        passed=$((passed + 1))
    else
        fail "$name" "$why"
    fi
}

keys_of "GPT: ablate" "baseline_next_token intervention" --model sotu-small --text "$text" --ablate 0.1,3.7
keys_of "GPT: mean ablation at positions, lens, attribution" "baseline_next_token intervention logit_lens attribution" \
    --model sotu-small --text "$text" --ablate 2.3 --ablate-mode mean --ablate-at 3,13 --logit-lens --attribute 262,257
keys_of "GPT: patch and head effects" "baseline_next_token intervention head_effects head_effects_metric" \
    --model sotu-small --text "$text" --patch 1.1 --patch-from "${text/strong/weak}" --head-effects logit-diff:262,257
keys_of "Llama family: lens only" "logit_lens" --model "$qwen" --ids 1,5,9,2,7 --logit-lens
keys_of "Llama family: head effects" "head_effects head_effects_metric" --model "$qwen" --ids 1,5,9,2,7 --head-effects prob:3

expect_error "no model" "give --model" --ablate 0.1
expect_error "layer past the model" "the model has layers 0..3, got 4.0" --model sotu-small --text "$text" --ablate 4.0
expect_error "head past the layer" "heads 0..7 a layer, got 0.8" --model sotu-small --text "$text" --ablate 0.8
expect_error "not LAYER.HEAD" "needs heads as LAYER.HEAD" --model sotu-small --text "$text" --ablate 3
expect_error "negative head" "needs heads as LAYER.HEAD \(e.g. 5.1\), got '0.-1'" --model sotu-small --text "$text" --ablate 0.-1
expect_error "empty item" "empty item" --model sotu-small --text "$text" --ablate 0.1,
expect_error "a position past the text" "position 14 is past the text \(14 tokens" --model sotu-small --text "$text" \
    --ablate 0.1 --ablate-at 14
expect_error "ablate mode" "--ablate-mode needs zero or mean" --model sotu-small --text "$text" --ablate 0.1 --ablate-mode one
expect_error "patch source of another length" "--patch-from has 2 tokens and the text 14" --model sotu-small \
    --text "$text" --patch 0.1 --patch-from "Hello there"
expect_error "patch without source" "--patch needs --patch-from" --model sotu-small --text "$text" --patch 0.1
expect_error "ablate and patch" "cannot be combined" --model sotu-small --text "$text" --patch 0.1 --ablate 0.1 \
    --patch-from "$text"
expect_error "id outside the vocabulary" "token id 96 is outside the model's vocabulary \(0..95\)" --model "$qwen" \
    --ids 1,5,9 --attribute 96
expect_error "metric" "needs prob:ID or logit-diff:ID1,ID2" --model "$qwen" --ids 1,5,9 --head-effects p:3
expect_error "Llama head past the layer" "heads 0..3 a layer" --model "$qwen" --ids 1,5,9 --ablate 0.4
expect_error "next-at past the text" "--next-at 3: the text has 3 tokens" --model "$qwen" --ids 1,5,9 --logit-lens --next-at 3
expect_error "not with --generate" "--generate do not go with it yet" --model sotu-small --text "$text" --ablate 0.1 --generate 3
expect_error "the lens has no program" "--logit-lens, --attribute and --head-effects are the JSON's" --model sotu-small \
    --text "$text" --ablate 0.1 --logit-lens --emit-pytorch
expect_error "a program needs a change" "needs --ablate or --patch" --model sotu-small --text "$text" --ablate-mode mean \
    --emit-pytorch
expect_error "a line break in a head stays one line" "got '0\\\\n1'" --model sotu-small --text "$text" --ablate $'0\n1'
expect_error "over the budget, before the work" "this needs about .* \(budget" --model sotu-small --text "$text" \
    --logit-lens --memory-budget 1M

echo "cli_interventions: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
