#!/usr/bin/env bash
# `attnscope-cli <flags> --emit-pytorch` (issue 5): the Python program it prints, run with
# Debian's PyTorch (/usr/bin/python3, python3-torch), prints the same JSON as
# `attnscope-cli <flags>` — every key both ways, numbers within 1e-5 abs+rel, null where
# masked — for every variant and the options that change the emitted code, the book's ch04
# classes (gqa with and without RoPE, swa, mla), ALiBi's, and their kv_cache among them.
# Usage: tests/emit_pytorch.test.sh BUILD_DIR   (ctest passes the build directory)
set -u

here=$(cd "$(dirname "$0")" && pwd)
source "$here/cli_lib.sh" "${1:-}" torch
printf 'The cat sat on the mat.\nThe dog ate my homework, quickly!\n' >"$tmp/corpus.txt"
setup_failed=0

# config NAME FLAGS...: the CLI's JSON as NAME.json, its program as NAME.py
config() {
    local name=$1
    shift
    if ! "$cli" "$@" >"$tmp/$name.json" 2>"$tmp/err" || ! "$cli" "$@" --emit-pytorch >"$tmp/$name.py" 2>>"$tmp/err"; then
        echo "FAIL: $name: attnscope-cli failed: $(head -c 300 "$tmp/err")"
        rm -f "$tmp/$name.json" "$tmp/$name.py"
        setup_failed=$((setup_failed + 1))
    fi
}

life="Life is short, eat dessert first"
config simplified_batch2 --variant simplified --batch 2
config self_v1_book --variant self-v1
config self_v1_004_d_out_v --variant self-v1 --text "$life" --d-out 3 --d-out-v 4
config self_v1_004_heads_causal_batch2 --variant self-v1 --text "$life" --d-out-v 4 --heads 3 --causal --batch 2
config self_v1_repeated_words --variant self-v1 --text "a b a c" --d-in 5 --vocab-size 3 --embed-seed 21
config self_v2_qkv_bias_causal --variant self-v2 --seed 789 --qkv-bias --causal
config self_v2_book_pos --variant self-v2 --pos --embed-seed 7 --text "step one with starts journey Your"
config causal_dropout_continues --variant causal --dropout 0.5
config causal_dropout_seed_batch2 --variant causal --dropout 0.5 --dropout-seed 123 --batch 2
config causal_eval --variant causal --dropout 0.5 --eval
config mha_wrapper_bias_dropout --variant mha-wrapper --heads 2 --batch 2 --dropout 0.1 --qkv-bias
config mha_pos_dropout_batch2 --variant mha --heads 2 --d-out 4 --dropout 0.5 --batch 2 --pos \
    --text "the cat sat on a warm mat" --d-in 8 --vocab-size 100
config mha_dropout1_bias --variant mha --heads 3 --d-out 9 --dropout 1 --qkv-bias --text "$life" --d-in 6
config cross_random_second_input --variant cross --d-out-v 4
config cross_text2_heads_pos --variant cross --text "a b c d e" --text2 "f g a h i j k l m" --d-in 8 \
    --d-out 4 --d-out-v 3 --heads 2 --pos --seed 11 --embed-seed 5 --vocab-size 200 --batch 2
config cross_book_causal --variant cross --text "step one with" --text2 "Your journey" --causal
config gpt2_mha --variant mha --tokenizer gpt2 --text "Hello, do you like tea? In the sunlit terraces" \
    --d-in 16 --d-out 8 --heads 2 --pos
config simple_corpus_causal --variant causal --tokenizer simple --corpus "$tmp/corpus.txt" \
    --text "The cat ate the moon." --d-in 5 --dropout 0.1
config simple_own_text --variant self-v2 --tokenizer simple --text "Hello, world. Is this-- a test?" --d-in 4
config unicode_quotes --variant self-v1 --text "Zürich, café \"q\" it's Äpfel" --d-in 4 --vocab-size 10
# The book's ch04 classes: their kv_cache comes from the module's own cache (use_cache=True).
config gqa_plain --variant gqa --heads 4 --kv-groups 2 --d-out 8
config gqa_rope_base_bias_dropout_batch2 --variant gqa --heads 4 --kv-groups 2 --d-out 16 --rope --rope-base 500 \
    --qkv-bias --dropout 0.3 --batch 2
config gqa_multi_query_rope_gpt2_pos_eval --variant gqa --tokenizer gpt2 --text "Hello, do you like tea? In the sunlit" \
    --d-in 16 --d-out 12 --heads 3 --kv-groups 1 --rope --pos --dropout 0.5 --eval --seed 5 --embed-seed 9
config swa_window_dropout --variant swa --heads 2 --d-out 4 --window 2 --dropout 0.5
config swa_window_dropout_seed_simple --variant swa --tokenizer simple --text "The cat sat on the mat, then it slept." \
    --d-in 6 --d-out 6 --heads 3 --window 4 --dropout 0.2 --dropout-seed 42 --qkv-bias --batch 3
config mla_default_latent --variant mla --heads 2 --d-out 4
config mla_latent_dim_bias --variant mla --heads 2 --d-out 6 --latent-dim 3 --qkv-bias --text "$life" --d-in 5 \
    --dropout 0.1 --batch 2 --pos
config alibi_three_heads_dropout --variant alibi --heads 3 --d-out 6 --dropout 0.5 --batch 2
config alibi_gpt2_bias_long --variant alibi --tokenizer gpt2 --text "$life" --d-in 8 --d-out 8 --heads 4 --qkv-bias

# One program the way a student runs it, in its own process: the book's prints, then the
# JSON as the last line.
standalone_failed=0
if ! "$python" "$tmp/causal_dropout_continues.py" >"$tmp/standalone.out" 2>"$tmp/err"; then
    echo "FAIL: standalone run: $(head -c 300 "$tmp/err")"
    standalone_failed=1
else
    tail -n 1 "$tmp/standalone.out" >"$tmp/standalone.json"
    if ! "$python" "$here/compare_json.py" "$tmp/causal_dropout_continues.json" "$tmp/standalone.json"; then
        echo "FAIL: standalone run: its last line is not the CLI's JSON"
        standalone_failed=1
    elif [[ $(wc -l <"$tmp/standalone.out") -lt 3 ]]; then
        echo "FAIL: standalone run: expected the book's prints before the JSON"
        standalone_failed=1
    else
        echo "ok:   standalone run prints the book's tensors, then the CLI's JSON"
    fi
fi

# compare_json.py's tolerance on what PyTorch printed: one ulp of a stage's scale passes;
# a dropped term (the last query's last key), a wrong scale (sqrt(d_in) for sqrt(head_dim))
# and two swapped rows of the context fail.
if [[ $standalone_failed -eq 0 ]] && ! PYTHONPATH="$here" "$python" - "$tmp/standalone.json" <<'PY'
import copy, json, math, sys
from compare_json import differences, scale_of
torch = json.load(open(sys.argv[1]))
head = torch["heads"][0]
def changed(stage, rows):
    out = copy.deepcopy(torch)
    out["heads"][0][stage] = rows
    return out
def same(stage, rows):
    return not differences(torch, changed(stage, rows))[0]
ctx, w, v = head["context"], head["dropped_weights"], head["values"]
ulp = scale_of(ctx) * 2.0 ** -23
last = len(w) - 1
key = max(j for j in range(len(w[last])) if w[last][j] != 0.0)
dropped = copy.deepcopy(ctx)
dropped[last] = [c - w[last][key] * vk for c, vk in zip(ctx[last], v[key])]
d_in, head_dim = len(torch["inputs"][0]), len(head["queries"][0])
def softmax_by(d):
    rows = []
    for srow, mrow in zip(head["scores"], head["masked_scores"]):
        e = [math.exp(s / math.sqrt(d)) if m is not None else 0.0 for s, m in zip(srow, mrow)]
        rows.append([x / sum(e) for x in e])
    return rows
checks = [("one ulp of the scale passes", same("context", [[c + (ulp if j % 2 else -ulp) for j, c in enumerate(r)] for r in ctx])),
          ("the softmax rebuilt with the head's scale passes", same("weights", softmax_by(head_dim))),
          ("a dropped term fails", not same("context", dropped)),
          ("a wrong scale fails", d_in != head_dim and not same("weights", softmax_by(d_in))),
          ("two swapped rows fail", not same("context", [ctx[-1]] + ctx[1:-1] + [ctx[0]]))]
for name, ok in checks:
    print(("ok:   " if ok else "FAIL: ") + "compare_json.py: " + name)
sys.exit(0 if all(ok for _, ok in checks) else 1)
PY
then
    standalone_failed=1
fi

# The rest in one Python process (each program as a fresh __main__ with --json).
"$python" "$here/compare_json.py" --programs "$tmp"
programs_rc=$?
if [[ $setup_failed -ne 0 || $standalone_failed -ne 0 || $programs_rc -ne 0 ]]; then
    echo "emit_pytorch: FAILED ($setup_failed configurations could not be generated)"
    exit 1
fi
