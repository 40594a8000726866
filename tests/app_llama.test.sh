#!/bin/bash
# A Llama-family model in the app (issue 36), driven as a reader would: a copy of the golden
# Qwen2.5 folder (two F16 shards, 3 layers, 4 query heads sharing 2 key/value heads) with
# a tokenizer.json whose tokens are single characters (test_llama_model_run.cpp says why),
# placed in a Hugging Face cache ($HF_HUB_CACHE) as models--test--tiny-qwen2. The model list
# offers it; picked, its tokens and next tokens are the CLI's (cli_llama.test.sh and
# test_llama_model_run.cpp check those against PyTorch); the grid sets each key/value
# group's query heads apart; "Append the most likely token" appends the first of them, a
# step from the KV cache, whose size (the key/value heads') the view shows.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display

PY=/usr/bin/python3  # Debian's, with python3-torch: the saved program runs on it
HUB="$WORK/hub"
source "$TESTS/tiny_llama_hub.sh"
SNAP=$(tiny_llama_hub "$HUB" test/tiny-qwen2)
export HF_HUB_CACHE="$HUB"
text="Hello world, hello tea"
"$CLI" --model "$SNAP" --text "$text" >"$WORK/cli.json" || fail "the CLI runs the folder"
# The list names it by its repository id, as --model does.
ran="s['model_run'] is not None and s['model_run']['name'] == 'test/tiny-qwen2' and not s['computing']"

start_app --text "$text"
wait_state "$(settled 1)"
read -r x y <<<"$(widget_centre model)"
click "$x" "$y"
# Entries: the module, gpt-ch4, the two shipped models, then the cache's (no GPT-2 in this one).
check "the model list opens" wait_state "'model_entry_4' in s['widgets']"
pick_entry model_entry_4
check "the cache's Qwen2.5 folder is in the model list, and runs" wait_state "$ran and s['error'] is None"
check "3 layers of 4 query heads, 2 key/value heads" \
    test "$(json "$STATE" "[s['model_run'][k] for k in ('n_layer', 'n_head', 'n_kv_head')]")" = "[3, 4, 2]"
check "the tokens are the CLI's (the folder's tokenizer.json)" \
    test "$(json "$STATE" "[s['tokens'], s['token_ids']]")" = "$(json "$WORK/cli.json" "[s['tokens'], s['token_ids']]")"
check "the next tokens are the CLI's" python3 - "$STATE" "$WORK/cli.json" <<'PY'
import json, sys
app, cli = (json.load(open(p)) for p in sys.argv[1:3])
ours, theirs = app["model_run"]["next_token"], cli["next_token"]
assert [t["id"] for t in ours] == [t["id"] for t in theirs], (ours, theirs)
assert all(abs(a["prob"] - b["prob"]) <= 1e-6 for a, b in zip(ours, theirs)), (ours, theirs)
PY
check "every layer x head is a tile" wait_state "all('model/%d.%d' % (l, h) in s['heatmaps'] for l in range(3) for h in range(4))"
# Query heads 0-1 share key/value head 0, 2-3 head 1: the gap between 0.1 and 0.2 is wider.
gap() { echo "s['heatmaps']['model/0.$2']['rect'][0] - s['heatmaps']['model/0.$1']['rect'][2]"; }
check "a wider gap between the key/value groups than within one" \
    test "$(json "$STATE" "$(gap 1 2) > 2 * ($(gap 0 1))")" = true

# The KV cache holds the 2 key/value heads' keys and values (head_dim 8, config.json's),
# not the 4 query heads': 3 x 2 x 8 floats a token each, float32.
cache_bytes="s['model_run']['kv_cache_bytes'] == 3 * 2 * 8 * len(s['token_ids']) * 2 * 4"
check "the model view shows the KV cache's size, and the state file its bytes" \
    wait_state "'kv_cache' in s['widgets'] and $cache_bytes"

first=$(json "$WORK/cli.json" "s['next_token'][0]['id']")
count=$(json "$STATE" "len(s['token_ids'])")
extended=$(json "$STATE" "s['extended_runs']")
step_to() { click_until "$1" "$2" "$3"; }
step_to append_token "s['computing'] or len(s['token_ids']) > $count" "append a token"
check "Append the most likely token appends the CLI's first next token" \
    wait_state "$ran and len(s['token_ids']) == $count + 1 and s['token_ids'][-1] == $first"
# The full run that brings the shown head's stages follows at once: the count says the
# token came from the cache (one extended run), not the run on screen.
check "that token came from the KV cache: one run extended from it" wait_state "s['extended_runs'] == $extended + 1"
check "the cache grew by the token" wait_state "$ran and len(s['token_ids']) == $count + 1 and $cache_bytes"

# File > Save PyTorch as .py: scripts/llama_family.py's model on the folder's weights, reading
# the tokens in view (the appended one too).
save_pytorch_program "$WORK/qwen.py" "for a Llama-family model"
cp "$STATE" "$WORK/saved-state.json"

# File > Open model on a folder: the golden Qwen3 (q/k norms, one key/value head) beside a
# tokenizer.json; before it, a folder whose config.json names a model_type and nothing else.
mkdir -p "$WORK/qwen3" "$WORK/broken"
cp "$TESTS"/golden/llama/qwen3-qknorm-mqa-f32/* "$WORK/qwen3/"
one_char_tokenizer "$WORK/qwen3/tokenizer.json"
echo '{"model_type": "llama"}' >"$WORK/broken/config.json"
hold ctrl+m
check "Ctrl+M opens the model dialog, which offers Llama-family folders" \
    wait_state "s['dialog'] is not None and 'Qwen folder' in s['dialog']['title']"
type_path "$WORK/broken"
check "a folder whose config.json is not a whole model is explained in the dialog" \
    wait_state "s['dialog'] is not None and 'config.json' in (s['dialog']['error'] or '')"
type_path "$WORK/qwen3"
check "the Qwen3 folder opens: 2 layers of 4 query heads sharing 1 key/value head" \
    wait_state "s['dialog'] is None and s['model_run'] is not None and s['model_run']['name'] == '$WORK/qwen3'
                and not s['computing'] and s['error'] is None
                and [s['model_run'][k] for k in ('n_layer', 'n_head', 'n_kv_head')] == [2, 4, 1]"

# Token ids instead of the sentence (--ids): the model reads them as they are (and still
# generates the one token appended above after them).
given="s['token_ids'][:4] == [5, 17, 94, 3] and s['tokens'][2] == ' ' and len(s['token_ids']) == 5"
activate ids
type_text "5,17,94,3"
check "typed token ids are what the model reads" wait_state "$(settled) and s['error'] is None and $given"
type_text "x"
check "a word that is not an id is refused in one line, the last view kept" \
    wait_state "not s['computing'] and \"--ids needs token ids such as 1,2,3, got '3x'\" == s['error'] and $given"
hold ctrl+a
type_text "5,17,96"
check "an id outside the vocabulary is refused in one line" \
    wait_state "not s['computing'] and 'token id 96 is outside the model' in (s['error'] or '')"
hold ctrl+a
hold BackSpace
check "an empty box reads the sentence's tokens again" \
    wait_state "$(settled) and s['error'] is None and len(s['token_ids']) == len('$text') + 1"
quit_app
check "quits cleanly" test "$APP_EXIT" -eq 0

check "the saved program, run with PyTorch, reads the tokens in view and gives the window's next tokens" \
    $PY -c '
import json, subprocess, sys
s = json.load(open(sys.argv[1]))
p = json.loads(subprocess.run([sys.executable, sys.argv[2], "--json"], check=True, capture_output=True, text=True).stdout)
want = s["model_run"]["next_token"]
assert p["token_ids"] == s["token_ids"] and len(p["token_ids"]) == int(sys.argv[3]) + 1, (p["token_ids"], s["token_ids"])
assert (p["layer"], p["head"]) == (s["model_run"]["layer"], s["model_run"]["head"]), (p["layer"], p["head"])
assert len(p["weights"]) == len(p["token_ids"]) and "generated" not in p
assert p["next_token_position"] == s["model_run"]["next_token_position"]
assert [t["id"] for t in p["next_token"]] == [t["id"] for t in want], (p["next_token"], want)
assert max(abs(a["prob"] - b["prob"]) for a, b in zip(p["next_token"], want)) <= 1e-4 * max(t["prob"] for t in want)
' "$WORK/saved-state.json" "$WORK/qwen.py" "$count"
finish
