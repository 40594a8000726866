#!/usr/bin/env bash
# `attnscope-cli --check` on modules recorded through the real recorder (the file
# `--print-recorder` prints, scripts/attnscope_record.py) with Debian's PyTorch: the book's
# chapter 3 classes (tests/golden/book_modules.py, scripts/book_gpt.py: SelfAttention_v1 and
# _v2, CausalAttention, MultiHeadAttentionWrapper, MultiHeadAttention) and chapter 4's
# (tests/golden/modern_*.py: GQA with and without RoPE, SWA, MLA, ALiBi) are found correct,
# in evaluation and in training with dropout; each mistake of tests/check/buggy_attention.py,
# buggy_variants.py and buggy_stacked.py is found at its stage with its diagnosis, exit 1; a file
# that is not a record, or whose shapes do not fit, is refused in one line, exit 2.
# Usage: tests/check_attention.test.sh BUILD_DIR   (ctest passes the build directory)
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cli_lib.sh" "${1:-}" torch
"$cli" --print-recorder >"$tmp/attnscope_record.py" || fail "--print-recorder" "exit $?"
cmp -s "$tmp/attnscope_record.py" "$here/../scripts/attnscope_record.py" || fail "--print-recorder" "not scripts/attnscope_record.py"

# Every module recorded once: inputs of the book's "Your journey starts with one step".
pythonpath="$tmp:$here/check:$here/golden:$here/../scripts"
if ! PYTHONPATH="$pythonpath" "$python" - "$tmp" <<'PY' 2>"$tmp/err"; then
import sys
import torch
import attnscope_record
from book_modules import SelfAttention_v1, SelfAttention_v2, CausalAttention, MultiHeadAttentionWrapper
from book_gpt import MultiHeadAttention
from buggy_attention import BUGS, STATED, BuggyMultiHeadAttention
import buggy_stacked

out = sys.argv[1]
inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
batch = torch.stack((inputs, inputs))  # the book's batch of two; the first sequence is checked
torch.manual_seed(123)
attnscope_record.record(SelfAttention_v2(3, 2), inputs, f"{out}/self_v2.safetensors")  # unbatched, as 3.4
torch.manual_seed(123)
attnscope_record.record(CausalAttention(3, 2, 6, 0.0).eval(), batch, f"{out}/causal.safetensors")
torch.manual_seed(123)
attnscope_record.record(MultiHeadAttention(3, 4, 6, 0.0, num_heads=2), batch, f"{out}/mha.safetensors")
torch.manual_seed(123)
attnscope_record.record(MultiHeadAttention(3, 6, 6, 0.5, num_heads=3, qkv_bias=True).eval(), batch[:1],
                        f"{out}/mha_bias_eval.safetensors")
torch.manual_seed(123)
attnscope_record.record(MultiHeadAttention(3, 4, 6, 0.5, num_heads=2), batch, f"{out}/mha_training.safetensors")
for bug in BUGS:
    torch.manual_seed(123)
    module = BuggyMultiHeadAttention(3, 6, 6, 0.5 if bug == "dropout_in_eval" else 0.0, num_heads=3, bug=bug).eval()
    attnscope_record.record(module, batch[:1], f"{out}/{bug}.safetensors", **STATED.get(bug, {}))
# 3.4.1 and 3.6.1: nn.Parameter weights, and a CausalAttention a head.
torch.manual_seed(123)
attnscope_record.record(SelfAttention_v1(3, 2), inputs, f"{out}/self_v1.safetensors")  # unbatched, as 3.4.1
torch.manual_seed(123)
attnscope_record.record(MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2).eval(), batch, f"{out}/wrapper.safetensors")
torch.manual_seed(123)
attnscope_record.record(MultiHeadAttentionWrapper(3, 2, 6, 0.5, num_heads=2), batch, f"{out}/wrapper_training.safetensors")
torch.manual_seed(123)
attnscope_record.record(MultiHeadAttentionWrapper(3, 2, 6, 0.5, num_heads=3, qkv_bias=True).eval(), batch,
                        f"{out}/wrapper_bias_eval.safetensors")
for bug in buggy_stacked.BUGS:
    module, x = buggy_stacked.buggy(bug, inputs)
    attnscope_record.record(module, x, f"{out}/{bug}.safetensors", **buggy_stacked.STATED.get(bug, {}))
attnscope_record._FunctionMode = None  # a torch without TorchFunctionMode: only the output is seen
torch.manual_seed(123)
attnscope_record.record(SelfAttention_v1(3, 2), inputs, f"{out}/self_v1_unseen.safetensors")
PY
    fail "recording" "the recorder failed"
fi

# Chapter 4's classes as the book wrote them (modern_recording.RECORD off), and with mistakes.
if ! PYTHONPATH="$pythonpath" "$python" - "$tmp" <<'PY' 2>"$tmp/err"; then
import sys
import torch
import attnscope_record
from buggy_variants import BUGS, buggy  # sets modern_recording.RECORD = False
from modern_alibi import MultiHeadAttentionWithALiBi
from modern_gqa import GroupedQueryAttention
from modern_mla import MultiHeadLatentAttention
from modern_swa import MultiHeadAttentionWithSWA

out = sys.argv[1]
inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
batch = torch.stack((inputs, inputs))
modules = {
    "gqa": lambda: GroupedQueryAttention(3, 8, 0.0, 4, 2),
    "gqa_rope": lambda: GroupedQueryAttention(3, 8, 0.0, 4, 2, rope_base=10000),
    "mqa_bias": lambda: GroupedQueryAttention(3, 8, 0.5, 4, 1, qkv_bias=True),
    "swa": lambda: MultiHeadAttentionWithSWA(3, 4, 0.0, 2, sliding_window_size=3),
    "swa_none": lambda: MultiHeadAttentionWithSWA(3, 4, 0.0, 2, sliding_window_size=None),
    "mla": lambda: MultiHeadLatentAttention(3, 8, 0.0, 2, latent_dim=4),
    "mla_bias": lambda: MultiHeadLatentAttention(3, 8, 0.5, 2, qkv_bias=True, latent_dim=4),
    "alibi": lambda: MultiHeadAttentionWithALiBi(3, 8, 0.0, 4),
}
for name, make in modules.items():
    torch.manual_seed(123)
    attnscope_record.record(make().eval(), batch, f"{out}/{name}.safetensors")
torch.manual_seed(123)
attnscope_record.record(GroupedQueryAttention(3, 8, 0.5, 4, 2, rope_base=10000), batch,
                        f"{out}/gqa_rope_training.safetensors")
for bug in BUGS:
    attnscope_record.record(buggy(bug), batch[:1], f"{out}/{bug}.safetensors")
torch.manual_seed(123)  # nn.Linear's default bias where qkv_bias=False was meant
attnscope_record.record(MultiHeadLatentAttention(3, 8, 0.0, 2, qkv_bias=True, latent_dim=4).eval(), batch[:1],
                        f"{out}/mla_bias_without_qkv_bias.safetensors", qkv_bias=False)
PY
    fail "recording chapter 4's classes" "the recorder failed"
fi

for name in self_v2 causal mha mha_bias_eval mha_training; do
    if "$cli" --check "$tmp/$name.safetensors" >"$tmp/out" 2>"$tmp/err" && grep -q "every recorded stage matches" "$tmp/out"; then
        echo "ok:   the book's $name: $(grep -o 'matches:.*' "$tmp/out")"
        passed=$((passed + 1))
    else
        fail "the book's $name" "$(cat "$tmp/out")"
    fi
done
grep -q "dropped_weights not compared: the module is training" <(
    "$cli" --check "$tmp/mha_training.safetensors") || fail "training" "no note on the dropout's draws"

# expect_match NAME STAGES MODULE: found correct, STAGES among the matches, MODULE in the module's words.
expect_match() {
    if "$cli" --check "$tmp/$1.safetensors" >"$tmp/out" 2>"$tmp/err" && grep -q "every recorded stage matches" "$tmp/out" &&
        grep -q "matches:   $2" "$tmp/out" && grep -qF "$3" "$tmp/out"; then
        echo "ok:   $3: $(grep -o 'matches:.*' "$tmp/out")"
        passed=$((passed + 1))
    else
        fail "$1" "$(cat "$tmp/out")"
    fi
}
expect_match gqa "queries, keys, values, weights, dropped_weights, concat, output" \
    "GroupedQueryAttention(d_in=3, d_out=8, num_heads=4, num_kv_groups=2, dropout=0, eval)"
expect_match gqa_rope "queries, keys, values, weights" "num_kv_groups=2, rope_base=10000"
expect_match mqa_bias "queries, keys, values, weights" "num_heads=4, num_kv_groups=1, dropout=0.5, eval"
expect_match swa "queries, keys, values, weights" "MultiHeadAttentionWithSWA(d_in=3, d_out=4, num_heads=2, sliding_window_size=3"
expect_match swa_none "queries, keys, values, weights" "sliding_window_size=None"
expect_match mla "queries, latents, keys, values, weights, dropped_weights, concat, output" "latent_dim=4"
expect_match mla_bias "queries, latents, keys, values, weights" "MultiHeadLatentAttention(d_in=3, d_out=8, num_heads=2, latent_dim=4"
expect_match alibi "queries, keys, values, weights, dropped_weights, concat, output" "MultiHeadAttentionWithALiBi(d_in=3"
expect_match self_v1 "queries, keys, values, weights, output" "SelfAttention_v1(d_in=3, d_out=2)"
expect_match self_v1_unseen "output" "SelfAttention_v1(d_in=3, d_out=2)"
grep -qF "queries, keys, values and weights not seen: the class's W_query, W_key and W_value are nn.Parameter" \
    "$tmp/out" || fail "self_v1_unseen" "no note on the stages not seen"
expect_match wrapper "queries, keys, values, weights, dropped_weights, output" \
    "MultiHeadAttentionWrapper(d_in=3, d_out=2, num_heads=2, dropout=0, eval)"
expect_match wrapper_bias_eval "queries, keys, values, weights, dropped_weights, output" \
    "MultiHeadAttentionWrapper(d_in=3, d_out=2, num_heads=3, dropout=0.5, eval)"
if "$cli" --check "$tmp/wrapper_training.safetensors" >"$tmp/out" 2>"$tmp/err"; [[ $? -eq 0 ]] &&
    grep -q "matches:   queries, keys, values, weights$" "$tmp/out" && grep -q "dropped_weights not compared" "$tmp/out" &&
    grep -q "output not compared" "$tmp/out"; then
    echo "ok:   MultiHeadAttentionWrapper, training: $(grep -o 'matches:.*' "$tmp/out")"
    passed=$((passed + 1))
else
    fail "wrapper_training" "$(cat "$tmp/out")"
fi
if "$cli" --check "$tmp/gqa_rope_training.safetensors" >"$tmp/out" 2>"$tmp/err"; [[ $? -eq 0 ]] &&
    grep -q "matches:   queries, keys, values, weights$" "$tmp/out" && grep -q "dropped_weights not compared" "$tmp/out"; then
    echo "ok:   GroupedQueryAttention with RoPE, training: $(grep -o 'matches:.*' "$tmp/out")"
    passed=$((passed + 1))
else
    fail "gqa_rope_training" "$(cat "$tmp/out")"
fi

# expect_bug NAME STAGE WORDS: the first difference at STAGE, a diagnosis holding WORDS, exit 1,
# the JSON strict (no NaN or Infinity, which JSON has not).
expect_bug() {
    local bug=$1 stage=$2 words=$3 rc why
    "$cli" --check "$tmp/$bug.safetensors" --json >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if why=$("$python" - "$tmp/out" "$stage" "$words" "$rc" <<'PY'
import json, sys
def strict(constant):
    raise ValueError(f"{constant} in the JSON")
report = json.load(open(sys.argv[1]), parse_constant=strict)
stage, words, rc = sys.argv[2], sys.argv[3], int(sys.argv[4])
first = report["first_difference"]
assert rc == 1, f"exit {rc}"
assert first and first["stage"] == stage, f"first difference at {first and first['stage']}, not {stage}"
assert any(words in d for d in report["diagnoses"]), f"diagnoses {report['diagnoses']}"
assert first["arithmetic"], "no arithmetic"
print(f"{stage}, row {first['row']} column {first['column']}: {report['diagnoses'][0]}")
PY
    ); then
        echo "ok:   $bug -> $why"
        passed=$((passed + 1))
    else
        fail "$bug" "$why"
    fi
}
for module in buggy_attention buggy_variants buggy_stacked; do  # each BUGS as lines of bug, stage, words (torch imported once)
    while IFS=$'\t' read -r bug stage words; do
        expect_bug "$bug" "$stage" "$words"
    done < <(PYTHONPATH="$pythonpath" "$python" -c \
        "from $module import BUGS; print('\n'.join(f'{b}\t{s}\t{w}' for b, (s, w) in BUGS.items()))")
done
expect_bug mla_bias_without_qkv_bias queries "W_query, W_DKV, W_UK and W_UV have a bias although qkv_bias=False"

# Files that are not a record, or whose parts do not fit one another.
printf 'not a safetensors file' >"$tmp/junk.safetensors"
expect_error "not safetensors" "junk.safetensors: " --check "$tmp/junk.safetensors"
expect_error "no such file" "absent.safetensors" --check "$tmp/absent.safetensors"
if PYTHONPATH="$tmp" "$python" - "$tmp" <<'PY' 2>"$tmp/err"; then
import json, sys, torch
from attnscope_record import write_safetensors
out = sys.argv[1]
meta = {"class": '"MultiHeadAttention"', "d_in": "3", "d_out": "4", "num_heads": "2", "dropout": "0.0",
        "training": "false", "qkv_bias": "false", "mask": "true", "out_proj": "true"}
parts = {"input": torch.rand(6, 3), "param.W_query.weight": torch.rand(4, 3), "param.W_key.weight": torch.rand(4, 3),
         "param.W_value.weight": torch.rand(4, 3), "param.out_proj.weight": torch.rand(4, 4),
         "stage.weights": torch.rand(3, 6, 6)}
write_safetensors(f"{out}/heads.safetensors", parts, meta)
write_safetensors(f"{out}/heads_setting.safetensors", parts, dict(meta, num_heads='"two"'))
gqa = dict(meta, d_out="8", num_heads="4", mask="false", variant='"gqa"', num_kv_groups="2", rope_base="null")
write_safetensors(f"{out}/gqa_groups.safetensors", dict(parts, **{
    "param.W_query.weight": torch.rand(8, 3), "param.W_key.weight": torch.rand(8, 3),
    "param.W_value.weight": torch.rand(8, 3), "param.out_proj.weight": torch.rand(8, 8),
    "stage.weights": torch.rand(4, 6, 6)}), gqa)
write_safetensors(f"{out}/gqa_odd_rope.safetensors", dict(parts, **{
    "param.W_query.weight": torch.rand(6, 3), "param.W_key.weight": torch.rand(3, 3),
    "param.W_value.weight": torch.rand(3, 3), "param.out_proj.weight": torch.rand(6, 6),
    "stage.weights": torch.rand(2, 6, 6)}), dict(gqa, d_out="6", num_heads="2", num_kv_groups="1", rope_base="10000.0"))
# MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2): d_out is each head's.
wrapper = dict(meta, **{"class": '"MultiHeadAttentionWrapper"', "d_out": "2", "out_proj": "false",
                        "variant": '"mha-wrapper"'})
heads = {f"param.heads.{h}.{p}.weight": torch.rand(2, 3) for h in range(2) for p in ("W_query", "W_key", "W_value")}
wrapper_parts = dict(heads, **{"input": torch.rand(6, 3), "stage.weights": torch.rand(2, 6, 6)})
write_safetensors(f"{out}/wrapper_key.safetensors", dict(wrapper_parts, **{"param.heads.1.W_key.weight": torch.rand(3, 3)}),
                  wrapper)
write_safetensors(f"{out}/wrapper_bias.safetensors", dict(wrapper_parts, **{"param.heads.1.W_query.bias": torch.rand(2)}),
                  wrapper)
write_safetensors(f"{out}/wrapper_out_proj.safetensors", wrapper_parts, dict(wrapper, out_proj="true"))
x = torch.rand(6, 3)  # head 1's keys off in one cell: worked out with head 1's own W_key
side_by_side = lambda p: torch.cat([x @ heads[f"param.heads.{h}.{p}.weight"].T for h in range(2)], dim=-1)
keys = side_by_side("W_key")
keys[2, 2] += 1.0
write_safetensors(f"{out}/wrapper_head_1_keys.safetensors",
                  dict(heads, **{"input": x, "stage.queries": side_by_side("W_query"), "stage.keys": keys}), wrapper)
q, k = (side_by_side(p).view(6, 2, 2).transpose(0, 1) for p in ("W_query", "W_key"))  # heads, tokens, head_dim
weights = torch.softmax((q @ k.transpose(1, 2) / 2**0.5).masked_fill(torch.ones(6, 6).triu(1).bool(), -torch.inf), -1)
weights[1, 0, 5] = 0.5  # head 1 sees a future key: a column past the heads' widths
write_safetensors(f"{out}/wrapper_head_1_weights.safetensors", dict(heads, **{
    "input": x, "stage.queries": side_by_side("W_query"), "stage.keys": side_by_side("W_key"),
    "stage.values": side_by_side("W_value"), "stage.weights": weights}), wrapper)
# SelfAttention_v1(3, 2): nn.Parameter (d_in, d_out), no bias, no dropout.
v1 = dict(meta, **{"class": '"SelfAttention_v1"', "d_out": "2", "num_heads": "1", "mask": "false",
                   "out_proj": "false", "variant": '"self-v1"'})
v1_parts = {"input": torch.rand(6, 3), "param.W_query": torch.rand(3, 2), "param.W_key": torch.rand(3, 2),
            "param.W_value": torch.rand(3, 2), "stage.output": torch.rand(6, 2)}
write_safetensors(f"{out}/v1_key.safetensors", dict(v1_parts, **{"param.W_key": torch.rand(2, 3)}), v1)
write_safetensors(f"{out}/v1_dropped.safetensors", dict(v1_parts, **{"stage.dropped_weights": torch.rand(6, 6)}), v1)
v2 = dict(v1, **{"class": '"SelfAttention_v2"'})
del v2["variant"]  # chapter 3's file of before any variant
write_safetensors(f"{out}/v2_dropped.safetensors", {"input": torch.rand(6, 3), "param.W_query.weight": torch.rand(2, 3),
                  "param.W_key.weight": torch.rand(2, 3), "param.W_value.weight": torch.rand(2, 3),
                  "stage.dropped_weights": torch.rand(1, 6, 6)}, v2)
PY
    expect_error "weights of the wrong shape" "stage.weights is \[3, 6, 6\]: 2 heads of 6 tokens make \[2, 6, 6\]" \
        --check "$tmp/heads.safetensors"
    expect_error "a setting that is not a number" "the setting num_heads is not a whole number" \
        --check "$tmp/heads_setting.safetensors"
    expect_error "GQA's W_key not of num_kv_groups" \
        "param.W_key.weight is \[8, 3\]: num_kv_groups 2 of head_dim 2 from d_in 3 make \[4, 3\]" \
        --check "$tmp/gqa_groups.safetensors"
    expect_error "a wrapper head's W_key of the wrong shape" "param.heads.1.W_key.weight is \[3, 3\]: nn.Linear\(3, 2\) make \[2, 3\]" \
        --check "$tmp/wrapper_key.safetensors"
    expect_error "a bias in one wrapper head" "param.heads.1.W_query.bias is there, head 0's is not" \
        --check "$tmp/wrapper_bias.safetensors"
    "$cli" --check "$tmp/wrapper_head_1_keys.safetensors" >"$tmp/out" 2>"$tmp/err"
    if [[ $? -eq 1 ]] && grep -q "differs:   keys, row 2, column 2" "$tmp/out" &&
        grep -qF "keys[2][2] = input row · heads.1.W_key column = " "$tmp/out"; then
        echo "ok:   a wrapper's head 1 keys: $(grep -o 'attnscope: .*' "$tmp/out")"
        passed=$((passed + 1))
    else
        fail "a wrapper's head 1 keys" "$(cat "$tmp/out")"
    fi
    "$cli" --check "$tmp/wrapper_head_1_weights.safetensors" >"$tmp/out" 2>"$tmp/err"
    if [[ $? -eq 1 ]] && grep -q "matches:   queries, keys, values$" "$tmp/out" &&
        grep -q "differs:   weights, head 1, row 0, column 5" "$tmp/out" && grep -qF "masked (the future" "$tmp/out"; then
        echo "ok:   a wrapper's head 1 weights: $(grep -o 'attnscope: .*' "$tmp/out")"
        passed=$((passed + 1))
    else
        fail "a wrapper's head 1 weights" "$(cat "$tmp/out")"
    fi
    expect_error "a wrapper with out_proj" "a mha-wrapper record with out_proj" --check "$tmp/wrapper_out_proj.safetensors"
    expect_error "SelfAttention_v1's W_key of the wrong shape" "param.W_key is \[2, 3\]: d_in 3 × d_out 2 \(x @ W\) make \[3, 2\]" \
        --check "$tmp/v1_key.safetensors"
    expect_error "SelfAttention_v1 with dropped weights" \
        "stage.dropped_weights was recorded, but SelfAttention_v1\(d_in=3, d_out=2\) computes no dropped_weights" \
        --check "$tmp/v1_dropped.safetensors"
    expect_error "SelfAttention_v2 with dropped weights" \
        "stage.dropped_weights was recorded, but SelfAttention_v2\(.*\) computes no dropped_weights \(attnscope's self-v2\)" \
        --check "$tmp/v2_dropped.safetensors"
    expect_error "RoPE on an odd head_dim" "RoPE \(rope_base 10000\) rotates pairs of features: head_dim 3 is odd" \
        --check "$tmp/gqa_odd_rope.safetensors"
else
    fail "writing bad records" "$(cat "$tmp/err")"
fi
expect_error "check with a run" "--check FILE reads the recorded module only" --check "$tmp/mha.safetensors" --model gpt-ch4

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
