#!/usr/bin/env bash
# attnscope-cli --model (issue 11): a GPT model's run as JSON, and the bad-input contract
# for models and checkpoints (exit 2, one line on stderr, nothing on stdout). The numbers
# themselves are checked against PyTorch by the unit tests ([checkpoint], [gpt]); here the
# shape of what a user gets: every layer and head, the detail head's stages, the next
# tokens, the generated ids, and where a model name is looked for.
# Usage: tests/cli_model.test.sh BUILD_DIR   (ctest passes the build directory)
set -u

source "$(dirname "$0")/cli_lib.sh" "${1:-}"
golden="$(cd "$(dirname "$0")" && pwd)/golden/checkpoints"

# expect_json NAME PYTHON_CHECK ARGS...: exit 0, and the check (reading the JSON as `d`) holds.
expect_json() {
    local name=$1 check=$2
    shift 2
    if ! "$cli" "$@" >"$tmp/out" 2>"$tmp/err"; then fail "$name" "exit code $?"; return; fi
    if ! "$python" -c '
import json, sys
d = json.load(open(sys.argv[1]))
def rows_are_causal_softmax(m):
    return all(abs(sum(r) - 1) < 1e-5 and all(v == 0 for v in r[i + 1:]) for i, r in enumerate(m))
assert eval("(" + sys.argv[2] + ")"), "check failed"
' "$tmp/out" "$check" 2>"$tmp/pyerr"; then
        fail "$name" "$check: $(tail -1 "$tmp/pyerr")"
        return
    fi
    echo "ok:   $name"
    passed=$((passed + 1))
}

# Chapter 4's seeded model prints the book's ids.
expect_json "gpt-ch4 generates the book's ids" \
    'd["token_ids"] == [15496, 11, 314, 716] and d["generated"] == [27018, 24086, 47843, 30961, 42348, 7267]
     and d["model"] == {"name": "gpt-ch4", "file": "", "n_layer": 12, "n_head": 12, "n_kv_head": 12, "head_dim": 64,
                        "n_embd": 768, "n_ctx": 1024, "vocab_size": 50257, "dtype": "float32"}
     and all(h["kv_head"] == i for l in d["layers"] for i, h in enumerate(l["heads"]))
     and len(d["layers"]) == 12 and all(len(l["heads"]) == 12 for l in d["layers"])
     and all(rows_are_causal_softmax(h["weights"]) and len(h["weights"]) == 4 for l in d["layers"] for h in l["heads"])
     and len(d["next_token"]) == 10 and d["next_token"][0]["id"] == 27018 and d["next_token"][0]["token"] == " Feature"
     and all(a["prob"] >= b["prob"] for a, b in zip(d["next_token"], d["next_token"][1:]))
     and d["next_token_position"] == 3 and all("sampled_prob" not in t for t in d["next_token"])
     and d["sampling"] == {"method": "argmax", "temperature": 0, "top_k": None, "seed": 123}' \
    --model gpt-ch4 --text "Hello, I am" --generate 6
# --next-at P: the next tokens after position P are those after the text cut there (the
# model is causal), and generation still continues after the last token.
"$cli" --model gpt-ch4 --text "Hello," >"$tmp/cut.json" 2>"$tmp/err"
expect_json "--next-at 1 predicts after 'Hello,' and generates the book's ids" \
    "d['next_token_position'] == 1 and d['generated'] == [27018, 24086, 47843, 30961, 42348, 7267]
     and [t['id'] for t in d['next_token']] == [t['id'] for t in json.load(open('$tmp/cut.json'))['next_token']]
     and max(abs(a['prob'] - b['prob']) for a, b in zip(d['next_token'], json.load(open('$tmp/cut.json'))['next_token']))
         <= 1e-4 * d['next_token'][0]['prob']" \
    --model gpt-ch4 --text "Hello, I am" --generate 6 --next-at 1

# Chapter 5's sampled generation: torch's ids for the book's own call (top_k=25,
# temperature=1.4, torch.manual_seed(123), 15 tokens after "Every effort moves you"),
# from the golden files the scripts wrote.
sampled() {  # sampled FILE PYTHON_PATH: the generated ids the golden file holds there
    "$python" -c "import json, sys; print(json.load(open(sys.argv[1]))$2['generated'])" "$(dirname "$golden")/$1"
}
first_draw() {  # first_draw FILE PYTHON_PATH: the next tokens, each with the chance generate draws it
    "$python" -c "import json, sys; print(json.load(open(sys.argv[1]))$2['next_token'])" "$(dirname "$golden")/$1"
}
expect_json "gpt-ch4 samples torch's ids for the book's call, and says what each next token's draw chance is" \
    "d['generated'] == $(sampled sampling_golden.json "['gpt_ch4']['runs'][0]")
     and d['sampling'] == {'method': 'multinomial', 'temperature': 1.4, 'top_k': 25, 'seed': 123}
     and len(d['generated_tokens']) == 15
     and [t['id'] for t in d['next_token']] == [t['id'] for t in $(first_draw sampling_golden.json "['gpt_ch4']['runs'][0]")]
     and max(abs(a['sampled_prob'] - b['sampled_prob'])
             for a, b in zip(d['next_token'], $(first_draw sampling_golden.json "['gpt_ch4']['runs'][0]")))
         <= 1e-4 * max(t['sampled_prob'] for t in d['next_token'])" \
    --model gpt-ch4 --text "Every effort moves you" --generate 15 --temperature 1.4 --top-k 25
expect_json "the shipped model samples torch's ids (seed 2024, temperature 3)" \
    "d['generated'] == $(sampled checkpoint_golden.json "['shipped']['sampled'][3]")
     and d['sampling'] == {'method': 'multinomial', 'temperature': 3, 'top_k': None, 'seed': 2024}" \
    --model sotu-small --text "Every effort moves you" --generate 10 --temperature 3 --sample-seed 2024

# A small checkpoint (vocabulary 97: GPT-2 ids below 97 are single characters).
stages='["W_query","W_key","W_value","b_query","b_key","b_value","queries","keys","values","scores","scaled_scores","mask","masked_scores","weights","context"]'
expect_json "a checkpoint folder, with every stage of head 1.2" \
    "d['model']['n_layer'] == 2 and d['model']['n_head'] == 4 and d['model']['dtype'] == 'float32'
     and d['tokens'] == ['a', '!', 'b', '!', 'c'] and d['detail']['layer'] == 1 and d['detail']['head'] == 2
     and all(k in d['detail'] for k in $stages + ['inputs', 'normed', 'W_out', 'b_out', 'attention_output', 'residual'])
     and len(d['detail']['W_query']) == 32 and len(d['detail']['W_query'][0]) == 8 and len(d['detail']['queries']) == 5
     and d['detail']['masked_scores'][0][1] is None and 'generated' not in d
     and d['detail']['weights'] == d['layers'][1]['heads'][2]['weights']" \
    --model "$golden/f32-config" --text "a!b!c" --layer 1 --head 2
expect_json "--stages filters the detail head's stages" \
    "set(d['detail']) == {'layer', 'head', 'queries', 'inputs', 'normed', 'W_out', 'b_out', 'attention_output', 'residual'}
     and all(set(h) == {'kv_head', 'scores'} for l in d['layers'] for h in l['heads'])" \
    --model "$golden/f32-config/model.safetensors" --text "a!b" --layer 0 --head 0 --stages queries
expect_json "F16 with transformer. names (vocabulary 64: A is 32)" \
    "d['model']['dtype'] == 'float16' and len(d['layers']) == 3 and len(d['layers'][0]['heads']) == 3" \
    --model "$golden/f16-prefixed" --text "A!B"
expect_json "BF16 with 64-wide heads" \
    "d['model']['dtype'] == 'bfloat16' and len(d['layers'][0]['heads']) == 2 and len(d['generated']) == 3" \
    --model "$golden/bf16-64wide" --text "A!B" --generate 3

# The Hugging Face cache: found by itself, honouring HF_HUB_CACHE and HF_HOME.
snapshot="$tmp/hub/models--openai-community--gpt2/snapshots/0123abc"
mkdir -p "$snapshot" "$tmp/hub/models--openai-community--gpt2/refs"
cp "$golden/f32-config/model.safetensors" "$golden/f32-config/config.json" "$snapshot/"
echo 0123abc >"$tmp/hub/models--openai-community--gpt2/refs/main"
HF_HUB_CACHE="$tmp/hub" expect_json "gpt2 from \$HF_HUB_CACHE" "d['model']['file'] == '$snapshot/model.safetensors'" \
    --model gpt2 --text "a!b"
mkdir -p "$tmp/home"
ln -s "$tmp/hub" "$tmp/home/hub"
HF_HOME="$tmp/home" expect_json "gpt2 from \$HF_HOME/hub" "d['model']['name'] == 'gpt2' and d['model']['n_layer'] == 2" \
    --model gpt2 --text "a!b"
HF_HUB_CACHE="$tmp/nothing" expect_error "gpt2 not in the cache says how to get it" \
    "not in the Hugging Face cache .*attnscope-cli --model openai-community/gpt2 downloads it" --model gpt2 --text hi

# Bad input: one line, exit 2.
expect_error "text longer than the context" "17 GPT-2 tokens; the model reads at most 16" \
    --model "$golden/f32-config" --text "a!a!a!a!a!a!a!a!a"
expect_error "a token outside a small vocabulary" "outside the model's vocabulary of 97" --model "$golden/f32-config" --text "Hello"
expect_error "a layer the model does not have" "the model has 2 layers \(0..1\)" --model "$golden/f32-config" --text a --layer 2 --head 0
expect_error "a head the model does not have" "4 heads a layer" --model "$golden/f32-config" --text a --layer 0 --head 4
expect_error "--layer without --head" "go together" --model "$golden/f32-config" --text a --layer 0
expect_error "--layer without --model" "--layer needs --model" --layer 0 --head 0
expect_error "a chapter 3 setting with a model" "--d-out describes the chapter 3 module" --model gpt-ch4 --d-out 4
expect_error "--seed with a checkpoint" "--seed draws chapter 4's model" --model "$golden/f32-config" --seed 5
expect_error "--time with a model" "--time times the chapter 3 module only" --model gpt-ch4 --time 3
expect_error "a missing file" "nothing.safetensors: no such file" --model "$tmp/nothing.safetensors"
expect_error "a folder without model.safetensors" "model.safetensors: no such file" --model "$tmp"
head -c 5000 "$golden/f32-config/model.safetensors" >"$tmp/cut.safetensors"
expect_error "a truncated file" "cut.safetensors: tensor '.*' ends at byte" --model "$tmp/cut.safetensors"
printf 'not a checkpoint at all' >"$tmp/text.safetensors"
expect_error "a text file" "text.safetensors: not a safetensors file" --model "$tmp/text.safetensors"
mkfifo "$tmp/fifo"
expect_error "a FIFO (never waited on)" "fifo: not a file" --model "$tmp/fifo"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
