#!/usr/bin/env bash
# attnscope-cli's bad-input contract (issue 2): every bad input exits 2 with exactly one
# line on stderr naming the problem and nothing on stdout; a good run prints one valid
# JSON object with no NaN or Infinity literals.
# Usage: tests/cli_errors.test.sh BUILD_DIR   (ctest passes the build directory)
set -u

source "$(dirname "$0")/cli_lib.sh" "${1:-}"
expect_error "unknown variant" "unknown variant 'transformer'" --variant transformer
expect_error "unknown word with --embedding book" "'Hello' is not a word" --text "Hello journey" --embedding book
expect_error "d_out not divisible by heads (mha)" "divisible by heads" --variant mha --d-out 3 --heads 2
expect_error "empty text" "text is empty" --text ""
expect_error "text of only spaces and a comma" "text is empty" --text "  , "
expect_error "empty second text for cross" "second text is empty" --variant cross --text "a b" --text2 " "
expect_error "dropout -0.1" "dropout.*\[0, 1\]" --variant causal --dropout -0.1
# Numbers in plain decimal notation only (strtod took these).
for bad in " 0.5" "0x1p-2" "inf" "nan" "1e" "+0.5" "" ".5" "1." "1.e5" "-.5" "0.5 "; do
    expect_error "dropout '$bad'" "--dropout needs a number such as 0.5, got '" --variant causal --dropout "$bad"
done
# Today's variants (issue 12): what their classes would assert, refused in one line.
expect_error "gqa: heads not divisible by kv-groups" "heads \(4\) must be divisible by kv-groups \(3\)" \
    --variant gqa --heads 4 --kv-groups 3 --d-out 8
expect_error "gqa: more groups than heads" "heads \(2\) must be divisible by kv-groups \(4\)" --variant gqa --heads 2 --kv-groups 4 --d-out 4
expect_error "RoPE with an odd head dimension" "head dimension \(d_out / heads = 3\) must be even" \
    --variant gqa --rope --heads 2 --d-out 6
expect_error "swa window 0" "--window must be between 1 and" --variant swa --window 0
expect_error "mla latent-dim 0" "--latent-dim must be between 1 and" --variant mla --latent-dim 0
expect_error "kv-groups on mha" "mha has no key/value groups \(--kv-groups applies to gqa\)" --variant mha --kv-groups 2
expect_error "rope on swa" "swa has no rotary positions" --variant swa --rope
expect_error "rope-base without rope" "--rope-base needs --rope" --variant gqa --rope-base 500000
expect_error "window on mla" "mla has no sliding window" --variant mla --window 4
expect_error "rope on alibi" "alibi has no rotary positions" --variant alibi --rope
expect_error "a line break in a refused value stays one line" "unknown variant 'a\\\\nb'" --variant $'a\nb'
expect_error "memory budget 2X" "--memory-budget needs a size" --memory-budget 2X

# The memory budget: more than the machine holds is refused at once, in one line
# naming what to lower (issue 9: killed at 23 GB; std::bad_alloc, exit 134).
words4096=$(python3 -c "print(' '.join('w%d' % (i % 50) for i in range(4096)))")
words8192=$(python3 -c "print(' '.join('w%d' % (i % 50) for i in range(8192)))")
# budget_refusal NAME PATTERN ARGS...: refused from the estimate, before the work: the CLI
# touches no more than 512 MB at its peak (each refused run needs GBs), and a run that
# started the work instead of refusing it is stopped as a hang (timeout) and fails.
budget_refusal() {
    local name=$1 before=$failed peak
    CLI_WRAP=(/usr/bin/time -f %M -o "$tmp/peak_kb" timeout 120)
    expect_error "$@"
    CLI_WRAP=()
    peak=$(($(tail -1 "$tmp/peak_kb") / 1024))
    if ((failed == before && peak > 512)); then fail "$name" "touched $peak MB before refusing"; fi
}
# Only the output is kept, but the dropout draws of every batch element and head (one
# bit each) are made first: 34 GB.
budget_refusal "64 heads, batch 64, dropout, 8192 words" "needs about .* GB of memory .*batch \(64\)" \
    --variant mha --heads 64 --d-in 256 --d-out 256 --batch 64 --dropout 0.5 --text "$words8192" --stages output
budget_refusal "every head's weights, 64 heads of 4096 words" "needs about .* GB of memory \(budget 2.0 GB\): .*4096 tokens" \
    --variant mha --heads 64 --d-in 4096 --d-out 4096 --text "$words4096" --stages weights --memory-budget 2G
budget_refusal "cross, 64 heads of 4096" "needs about .* GB of memory .*d_in \(4096\)" \
    --variant cross --heads 64 --d-in 4096 --d-out 4096 --text "$words4096" --stages output
budget_refusal "a small budget refuses a moderate run" "needs about .* of memory \(budget 64 MB\)" \
    --variant mha --heads 12 --d-in 768 --d-out 768 --text "$words4096" --memory-budget 64M --stages output
ATTNSCOPE_MEMORY_BUDGET=64M budget_refusal "the budget from the environment" "\(budget 64 MB\)" \
    --variant mha --heads 12 --d-in 768 --d-out 768 --text "$words4096" --stages output
budget_refusal "--time that would run for hours" "would take about .* lower --time \(100000\)" \
    --variant mha --heads 4 --d-in 256 --d-out 256 --text "$words4096" --time 100000 --stages output
budget_refusal "a small budget refuses what the default admits" "needs about .* of memory \(budget 1 MB\)" \
    --variant mha --heads 2 --d-in 64 --d-out 64 --text "$words4096" --memory-budget 1M --stages output
budget_refusal "every stage of a long text would print for minutes" "would take about .*print fewer stages" \
    --variant mha --heads 12 --d-in 768 --d-out 768 --text "$words4096"

expect_error "dropout 1.5" "dropout.*\[0, 1\]" --variant causal --dropout 1.5
expect_error "dropout abc" "dropout.*number.*abc" --variant causal --dropout abc
expect_error "dropout on a variant without dropout" "self-v1 has no dropout" --variant self-v1 --dropout 0.5
expect_error "dropout on cross-attention" "cross has no dropout" --variant cross --dropout 0.1
expect_error "d_in 4 with --embedding book" "d_in must be 3" --d-in 4 --embedding book
expect_error "unknown flag" "unknown argument '--frobnicate'" --frobnicate
expect_error "missing flag value (--seed at the end)" "--seed needs a value" --variant self-v1 --seed
expect_error "missing flag value (--text at the end)" "--text needs a value" --text
expect_error "non-numeric --heads" "--heads needs a whole number" --variant mha --heads two
expect_error "unknown --stages name" "unknown stage 'attention'" --stages weights,attention
expect_error "--text2 with a non-cross variant" "second text.*cross" --variant self-v1 --text2 "one step"
expect_error "text longer than --context-length" "more than context_length 3" --text "a b c d" --context-length 3 --pos
expect_error "--heads with a one-head variant" "one head" --variant causal --heads 2
expect_error "unknown --embedding" "unknown embedding 'glove'" --embedding glove
# Chapter 5's sampling (with a model): what torch would refuse, and what has no model to sample.
expect_error "temperature -0.5" "--temperature must be in \[0, 100\], got -0.5" --model sotu-small --temperature -0.5
expect_error "temperature nan" "--temperature needs a number such as 0.5, got 'nan'" --model sotu-small --temperature nan
expect_error "temperature 101" "--temperature must be in \[0, 100\]" --model sotu-small --temperature 101
expect_error "top-k 0" "--top-k must be between 1 and" --model sotu-small --top-k 0
expect_error "top-k over the vocabulary" "--top-k 50258: the model's vocabulary has 50257 tokens" \
    --model sotu-small --text "Every effort moves you" --generate 5 --temperature 1 --top-k 50258
expect_error "sampling without a model" "--temperature needs --model" --temperature 1.4
expect_error "a sampling seed without a model" "--sample-seed needs --model" --sample-seed 5
# --next-at P: a position of the text's tokens (0-based); generated tokens come after the
# text and are not among them. Refused before the model runs.
expect_error "next-at past the text" "--next-at 4: the text has 4 GPT-2 tokens \(positions 0\.\.3\)" \
    --model sotu-small --text "Hello, I am" --next-at 4
expect_error "next-at on a generated token" "--next-at 5: the text has 4 GPT-2 tokens \(positions 0\.\.3\)" \
    --model sotu-small --text "Hello, I am" --generate 3 --next-at 5
expect_error "next-at -1" "--next-at must be between 0 and 65535, got -1" --model sotu-small --next-at -1
expect_error "next-at without a model" "--next-at needs --model" --next-at 2

# A good run: valid JSON (masked scores give null, never -Infinity), no NaN/Infinity.
check_json() {
    local name=$1
    shift
    "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [[ $rc -ne 0 ]]; then fail "$name" "exit code $rc"; return; fi
    if [[ -s $tmp/err ]]; then fail "$name" "stderr is not empty"; return; fi
    if ! python3 -c '
import json, sys
def bad(c):
    raise ValueError("non-JSON constant " + c)
d = json.load(sys.stdin, parse_constant=bad)
assert isinstance(d, dict) and d["heads"] and d["output"], "missing heads/output"
' <"$tmp/out" 2>"$tmp/pyerr"; then
        fail "$name" "not valid JSON: $(tail -1 "$tmp/pyerr")"
        return
    fi
    if grep -Eq 'NaN|Infinity' "$tmp/out"; then fail "$name" "NaN or Infinity in the output"; return; fi
    echo "ok:   $name -> valid JSON ($(wc -c <"$tmp/out") bytes)"
    passed=$((passed + 1))
}

check_json "good run: mha on the book's sentence" --variant mha --heads 2 --d-out 4 --dropout 0.5 --batch 2
check_json "good run: causal self-v1 with -inf masked scores" --variant self-v1 --causal --heads 2
check_json "good run: cross with a second text" --variant cross --text "Life is short" --text2 "eat dessert first now" --pos

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
