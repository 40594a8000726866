#!/usr/bin/env bash
# `attnscope-cli --model DIR --ids ...` on the Llama-family golden checkpoints
# (tests/golden/llama/, make_llama_golden.py): the JSON's every layer's and head's
# weights within 1e-4 of torch's scale, each head's key/value head, the 10 most probable
# next tokens (ids exactly, probabilities within 1e-4 of the first's); --generate; then
# what such a model does not take is refused: exit 2, one line.
# Usage: tests/cli_llama.test.sh BUILD_DIR   (ctest passes the build directory)
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cli_lib.sh" "${1:-}"
golden="$here/golden"
golden_ids() {  # golden_ids NAME: the golden model's token ids, as --ids takes them
    python3 -c 'import json,sys; m=[m for m in json.load(open(sys.argv[1]))["models"] if m["name"]==sys.argv[2]][0]
print(",".join(map(str, m["token_ids"])))' "$golden/llama_golden.json" "$1"
}

for name in $(python3 -c 'import json,sys; print(" ".join(m["name"] for m in json.load(open(sys.argv[1]))["models"]))' \
    "$golden/llama_golden.json"); do
    ids=$(golden_ids "$name")
    if ! "$cli" --model "$golden/llama/$name" --ids "$ids" >"$tmp/$name.json" 2>"$tmp/err"; then
        fail "$name" "attnscope-cli failed"
        continue
    fi
    if why=$(python3 - "$golden/llama_golden.json" "$name" "$tmp/$name.json" <<'PY'
import json, sys
golden = [m for m in json.load(open(sys.argv[1]))["models"] if m["name"] == sys.argv[2]][0]
ours = json.load(open(sys.argv[3]))
m = ours["model"]
heads, kv = m["n_head"], m["n_kv_head"]
assert ours["token_ids"] == golden["token_ids"], "token ids differ"
assert len(ours["layers"]) == len(golden["weights"]), "layer count differs"
for l, (layer, torch_layer) in enumerate(zip(ours["layers"], golden["weights"])):
    for h, (head, torch_w) in enumerate(zip(layer["heads"], torch_layer)):
        assert head["kv_head"] == h // (heads // kv), f"layer {l} head {h}: kv_head {head['kv_head']}"
        scale = max(abs(v) for row in torch_w for v in row)
        for i, (r, t) in enumerate(zip(head["weights"], torch_w)):
            for j, (a, b) in enumerate(zip(r, t)):
                assert abs(a - b) <= 1e-4 * scale, f"layer {l} head {h} weights[{i}][{j}]: {a}, torch {b}"
top = golden["top"]
for rank, (tok, i, p) in enumerate(zip(ours["next_token"], top["ids"], top["probs"])):
    assert tok["id"] == i and abs(tok["prob"] - p) <= 1e-4 * top["probs"][0], f"next token {rank}: {tok}, torch {i} {p}"
assert ours["next_token_position"] == len(golden["token_ids"]) - 1
print(f"{len(ours['layers'])} layers x {heads} heads ({kv} key/value heads), top {ours['next_token'][0]['id']}")
PY
    ); then
        echo "ok:   $name: $why"
        passed=$((passed + 1))
    else
        fail "$name" "JSON differs from torch's: $(tail -1 <<<"$why")"
    fi
done

model="$golden/llama/qwen3-qknorm-mqa-f32"
expect_error "no tokenizer.json" "has no tokenizer.json attnscope reads to tokenize the text: give the token ids with --ids" --model "$model" --text "hello"
expect_error "an id past the vocabulary" "token id 96 is outside the model's vocabulary \(0..95\)" --model "$model" --ids 1,96
expect_error "not an id" "--ids needs token ids such as 1,2,3, got '-3'" --model "$model" --ids 1,-3
expect_error "ids without a model" "--ids needs --model" --ids 1,2
expect_error "ids past a GPT model's vocabulary" "--ids: token id 50257 is outside the model's vocabulary \(0..50256\)" \
    --model gpt-ch4 --ids 1,50257
# A GPT model reads given ids too: the book's "Hello, I am" as GPT-2 encodes it gives the text's JSON.
if "$cli" --model gpt-ch4 --ids "15496, 11,314,716" >"$tmp/gpt-ids.json" 2>"$tmp/err" &&
    "$cli" --model gpt-ch4 --text "Hello, I am" >"$tmp/gpt-text.json" && cmp -s "$tmp/gpt-ids.json" "$tmp/gpt-text.json"; then
    echo "ok:   gpt-ch4 on --ids 15496,11,314,716 prints what it prints for the text \"Hello, I am\""
    passed=$((passed + 1))
else
    fail "a GPT model on --ids" "its JSON differs from the text's: $(tail -n 1 "$tmp/err")"
fi
# One model path (model/language_model.h): a Llama-family run takes what a GPT-2 run takes,
# a detail head with every stage (--layer/--head), --stages, --export.
if "$cli" --model "$model" --ids 1,2,3 --layer 1 --head 2 --stages weights,keys_rotated >"$tmp/detail.json" 2>"$tmp/err" &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["detail"]
assert (t["layer"], t["head"]) == (1, 2) and len(t["keys_rotated"]) == 3 and "queries" not in t, t.keys()
assert all("weights" in h for l in d["layers"] for h in l["heads"])' "$tmp/detail.json" &&
   "$cli" --model "$model" --ids 1,2,3 --layer 1 --head 2 --export "$tmp/export" 2>"$tmp/err" &&
   ls "$tmp/export" | grep -q "keys_rotated"; then
    echo "ok:   a Llama-family run's detail head, --stages and --export, as a GPT-2 run's"
    passed=$((passed + 1))
else
    fail "detail head" "$(head -c 300 "$tmp/err")"
fi
expect_error "generated past the positions" "4 tokens and 61 generated are more than the model's max_position_embeddings \(64\)" \
    --model "$model" --ids 1,2,3,4 --generate 61

# --generate: the first generated token is torch's most probable next token (greedy); the
# rest come from the KV cache (tests/test_llama_cache.cpp checks them against full forwards).
for name in llama3-scaled-tied-bf16 qwen3-qknorm-mqa-f32; do
    ids=$(golden_ids "$name")
    if ! "$cli" --model "$golden/llama/$name" --ids "$ids" --generate 5 >"$tmp/gen.json" 2>"$tmp/err"; then
        fail "$name --generate" "attnscope-cli failed: $(head -c 300 "$tmp/err")"
    elif why=$(python3 - "$golden/llama_golden.json" "$name" "$tmp/gen.json" <<'PY'
import json, sys
golden = [m for m in json.load(open(sys.argv[1]))["models"] if m["name"] == sys.argv[2]][0]
ours = json.load(open(sys.argv[3]))
assert ours["sampling"]["method"] == "argmax", ours["sampling"]
assert len(ours["generated"]) == 5 and len(ours["generated_tokens"]) == 5, ours["generated"]
assert ours["generated"][0] == golden["top"]["ids"][0], f"first generated {ours['generated'][0]}, torch's top {golden['top']['ids'][0]}"
print(f"generated {ours['generated']}")
PY
    ); then
        echo "ok:   $name --generate 5: $why"
        passed=$((passed + 1))
    else
        fail "$name --generate" "$(tail -1 <<<"$why")"
    fi
done
expect_error "next-at past the ids" "--next-at 5: the text has 2 tokens \(positions 0\.\.1\)" --model "$model" --ids 1,2 --next-at 5
expect_error "over the budget" "needs about .* \(budget" --model "$model" --ids "$(seq -s, 0 40 | sed 's/[0-9]*/1/g')" \
    --memory-budget 1K

# By repository id: a Hugging Face cache holding a copy as ORG/NAME (refs/main naming its
# snapshot) gives the folder's very JSON; offline, an id the cache has not is refused in one line.
repo="$tmp/hub/models--test--tiny-llama"
mkdir -p "$repo/refs" "$repo/snapshots"
cp -r "$model" "$repo/snapshots/abc123"
printf abc123 >"$repo/refs/main"
if HF_HUB_CACHE="$tmp/hub" "$cli" --model test/tiny-llama --ids 1,2,3 >"$tmp/by-id.json" 2>"$tmp/err" &&
   "$cli" --model "$model" --ids 1,2,3 >"$tmp/by-folder.json" &&
   python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [m["model"].pop(k) for m in (a, b) for k in ("name", "file")]; assert a==b' \
       "$tmp/by-id.json" "$tmp/by-folder.json"; then
    echo "ok:   a repository id in the cache runs its folder"
    passed=$((passed + 1))
else
    fail "repository id" "$(head -c 300 "$tmp/err")"
fi
# (Downloading one is tests/cli_hub.test.sh's.)
HF_HUB_OFFLINE=1 HF_HUB_CACHE="$tmp/hub" expect_error "a repository id the cache has not, offline" \
    "test/absent is not in the Hugging Face cache .* and HF_HUB_OFFLINE is set: unset it to download it" --model test/absent --ids 1,2

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
