#!/usr/bin/env bash
# scripts/train_small_model.py's pieces, checked with Debian's PyTorch and no training run
# (tests/train_script_check.py): the book's windows, repeated windows (text and random, halves, spans and periodic
# runs), an attention-only model's export, the induction stripe,
# the fixed sinusoid positions (in their own dimensions too), appendix D's schedule and the model card's notes on them;
# the sampled softmax's vocabulary; and its refusal of impossible repeat, position, softmax, dropout, time and
# device options (and of --card without a training run's log) before any work starts.
# Usage: tests/train_script.test.sh BUILD_DIR   (ctest passes the build directory)
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cli_lib.sh" "${1:-}" torch
export PYTHONDONTWRITEBYTECODE=1  # the checks write nothing but their report
"$python" "$here/train_script_check.py" || failed=$((failed + 1))

# refused NAME PATTERN ARGS...: exit 2 and an error line matching PATTERN, before the corpus
# loads. The runs are queued and run at the end, each in a process of its own forked after
# torch is imported once (tests/run_programs.py); a regression would train for an hour: each
# is ended after 120 s instead.
refusals=()
refused() {
    local out="$tmp/refusal-${#refusals[@]}"
    refusals+=("$1"$'\t'"$2")
    (IFS=$'\t'; echo "$out"$'\t'"$here/../scripts/train_small_model.py"$'\t'"--pilot"$'\t'"--out"$'\t'"$out.pilot"$'\t'"${*:3}") \
        >>"$tmp/refusals"
}
check_refusals() {
    "$python" "$here/run_programs.py" --timeout 120 <"$tmp/refusals"
    local i name pattern out rc
    for i in "${!refusals[@]}"; do
        IFS=$'\t' read -r name pattern <<<"${refusals[$i]}"
        out="$tmp/refusal-$i" rc=$(cat "$tmp/refusal-$i.rc")
        cp "$out.err" "$tmp/err"  # what fail prints
        if [[ $rc -ne 2 ]]; then fail "$name" "exit code $rc, expected 2"; continue; fi
        if [[ -s $out.out || -e $out.pilot ]]; then fail "$name" "it started training"; continue; fi
        if ! tail -n 1 "$out.err" | grep -Eq -- "$pattern"; then fail "$name" "message does not match /$pattern/"; continue; fi
        echo "ok:   $name -> $(tail -n 1 "$out.err")"
        passed=$((passed + 1))
    done
}
refused "repeat fraction 2" "--repeat-fraction must be between 0 and 1, got 2" --repeat-fraction 2
refused "repeat fraction nan" "--repeat-fraction must be between 0 and 1, got nan" --repeat-fraction nan
refused "odd position dimensions" "--position-dims must be 0 or an even number below --emb \\(192\\), got 31" --position-dims 31
refused "position dimensions as wide as the embedding" "--position-dims must be 0 or an even number below --emb \\(64\\), got 64" --emb 64 --position-dims 64
refused "position dimensions with learned positions" "--position-dims needs --positions sinusoidal" --positions learned --position-dims 32
refused "random repeats without a fraction" "--repeat-random needs --repeat-fraction above 0" --repeat-random --repeat-fraction 0
refused "span repeats without a fraction" "--repeat-kind span needs --repeat-fraction above 0" --repeat-kind span --repeat-fraction 0
refused "span repeats of text" "--repeat-kind span needs .* random tokens" --repeat-kind span --repeat-fraction 0.2 --no-repeat-random
refused "periodic repeats without a fraction" "--repeat-kind periodic needs --repeat-fraction above 0" --repeat-kind periodic --repeat-fraction 0
refused "negative batch softmax" "--batch-softmax must be 0 or a number of ids .* got -5" --batch-softmax -5
refused "batch softmax without restricted steps" "--batch-softmax must be 0 .* got 2000 with --restricted-softmax 0\$" --batch-softmax 2000 --restricted-softmax 0
refused "dropout of 1" "--drop-rate must be at least 0 and below 1, got 1" --drop-rate 1
refused "negative minutes" "--minutes must be 0 \(no limit\) or a number of minutes, got -1" --minutes -1
refused "cuda where torch sees none" "--device cuda: this PyTorch \(.*\) sees no CUDA device" --device cuda
refused "card without a training log" "--card: .*/train.log is not a training run's log \(FileNotFoundError\)" --card
check_refusals
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
