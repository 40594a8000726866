#!/usr/bin/env bash
# `attnscope-cli --export DIR` (issue 5; --model runs, issue 11) read back by NumPy
# (/usr/bin/python3, Debian's python3-numpy): every .npy loads with the shape of its stage
# and the values of DIR/trace.json (within 1e-6; -inf where the JSON has null), every .csv
# parses back to the same numbers; an unwritable DIR exits 2 with one line on stderr and
# no files.
# Usage: tests/export_numpy.test.sh BUILD_DIR   (ctest passes the build directory)
set -u

source "$(dirname "$0")/cli_lib.sh" "${1:-}" numpy
passed=0
failed=0

# check NAME FLAGS...: export into a new nested directory, then read it all back.
check() {
    local name=$1
    shift
    local dir="$tmp/$name/out"
    if ! "$cli" "$@" --export "$dir" >"$tmp/out" 2>"$tmp/err" || [[ -s $tmp/out ]]; then
        echo "FAIL: $name: attnscope-cli failed or printed to stdout: $(head -c 300 "$tmp/err")"
        failed=$((failed + 1))
        return
    fi
    if "$python" - "$dir" <<'EOF'; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
import csv
import json
import os
import sys

import numpy as np

directory = sys.argv[1]
with open(os.path.join(directory, "trace.json"), encoding="utf-8") as f:
    trace = json.load(f)


def as_array(value):
    """A JSON stage as float32, null (masked) as -inf."""
    def fix(v):
        return [fix(e) for e in v] if isinstance(v, list) else (-np.inf if v is None else v)
    return np.array(fix(value), dtype=np.float32)


def model_stages(trace):
    """A model run's files (--model): every head's weights, the detail's layer and head stages."""
    expected = {}
    for l, layer in enumerate(trace["layers"]):
        for h, head in enumerate(layer["heads"]):
            if "weights" in head:
                expected[f"layer{l}_head{h}_weights"] = as_array(head["weights"])
    detail = trace.get("detail", {})
    for key, value in detail.items():
        if key in ("layer", "head", "weights"):  # the head's weights come with every head's
            continue
        layer_stage = key in ("inputs", "normed", "W_out", "b_out", "attention_output", "residual")
        prefix = f"layer{detail['layer']}_" + ("" if layer_stage else f"head{detail['head']}_")
        expected[prefix + key] = as_array(value)
    return expected


expected = model_stages(trace) if "layers" in trace else {}
for key, value in ({} if "layers" in trace else trace).items():
    if key == "heads":
        for h, head in enumerate(value):
            for stage, v in head.items():
                if stage not in ("W_out", "b_out"):  # the module's, exported once
                    expected[f"head{h}_{stage}"] = as_array(v)
    elif isinstance(value, list) and value and isinstance(value[0], (list, float, int)) and key not in ("token_ids", "token_ids2"):
        expected[key] = as_array(value)

problems = []
names = sorted(f[:-4] for f in os.listdir(directory) if f.endswith(".npy"))
if not names or set(names) != set(expected):
    problems.append(f"files {sorted(set(names) ^ set(expected))} do not match trace.json's stages")
for name in names:
    if name not in expected:
        continue
    want = expected[name]
    got = np.load(os.path.join(directory, name + ".npy"))
    if got.dtype != np.dtype("<f4") or got.shape != want.shape:
        problems.append(f"{name}.npy: {got.dtype} {got.shape}, expected float32 {want.shape}")
        continue
    if not np.array_equal(np.isneginf(got), np.isneginf(want)) or \
            not np.allclose(got[np.isfinite(want)], want[np.isfinite(want)], rtol=1e-6, atol=1e-6):
        problems.append(f"{name}.npy: values differ from trace.json")
    with open(os.path.join(directory, name + ".csv"), newline="") as f:
        rows = [[float(cell) for cell in row] for row in csv.reader(f)]
    flat = got.reshape(-1, got.shape[-1]) if got.ndim > 1 else got.reshape(1, -1)
    if np.array(rows, dtype=np.float32).shape != flat.shape or \
            not np.array_equal(np.array(rows, dtype=np.float32), flat):
        problems.append(f"{name}.csv: does not parse back to the .npy's numbers")
with open(os.path.join(directory, "tokens.txt"), encoding="utf-8") as f:
    ids = [int(line.split("\t", 1)[0]) for line in f]
if ids != trace["token_ids"]:
    problems.append("tokens.txt: ids differ from trace.json")
leftovers = [f for f in os.listdir(directory) if f.startswith(".")]
if leftovers:
    problems.append(f"temporary files left: {leftovers}")

label = os.path.basename(os.path.dirname(directory))
if problems:
    print(f"FAIL: {label}")
    for p in problems:
        print(f"      {p}")
    sys.exit(1)
print(f"ok:   {label}: {len(names)} .npy files and their .csv match trace.json")
EOF
}

check book_self_v1 --variant self-v1
check causal_dropout_batch2 --variant causal --dropout 0.5 --batch 2 --qkv-bias
check mha_heads_pos --variant mha --heads 2 --d-out 4 --dropout 0.1 --batch 2 --pos --text "the cat sat on a warm mat" --d-in 8
check cross_text2 --variant cross --text "a b c" --text2 "d e f g" --d-in 4 --heads 2
check simplified --variant simplified

check sotu_small_head_1.2 --model sotu-small --text "The Congress shall assemble" --layer 1 --head 2 --generate 2
check sotu_small_weights_only --model sotu-small --text "The Congress shall assemble" --stages weights
check gpt_ch4_some_stages --model gpt-ch4 --text "Hello, I am" --layer 0 --head 3 --stages weights,queries,context

# An unwritable directory (below a regular file, so even root cannot write it).
touch "$tmp/a_file"
"$cli" --export "$tmp/a_file/sub" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc -eq 2 && $(wc -l <"$tmp/err") -eq 1 && ! -s $tmp/out ]] && grep -q "a_file" "$tmp/err"; then
    echo "ok:   unwritable directory -> $(cat "$tmp/err")"
    passed=$((passed + 1))
else
    echo "FAIL: unwritable directory: exit $rc, stderr: $(head -c 300 "$tmp/err")"
    failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
