# Sourced by window tests: tiny_llama_hub HUB ORG/NAME puts a copy of the golden Qwen2.5
# model (tests/golden/llama/qwen2-bias-f16-shards: two F16 shards, 3 layers, 4 query heads
# sharing 2 key/value heads) into the Hugging Face cache HUB as repository ORG/NAME
# (refs/main naming snapshot abc123), with a tokenizer.json whose tokens are single
# characters (test_llama_model_run.cpp says why; one_char_tokenizer below), and prints the
# snapshot's folder.
tiny_llama_hub() {
    local repo="$1/models--${2/\//--}"
    local snap="$repo/snapshots/abc123"
    mkdir -p "$snap" "$repo/refs"
    echo abc123 >"$repo/refs/main"
    cp "$TESTS"/golden/llama/qwen2-bias-f16-shards/* "$snap/"
    one_char_tokenizer "$snap/tokenizer.json"
    echo "$snap"
}

# one_char_tokenizer FILE: writes a byte-level BPE tokenizer.json without merges whose tokens
# are the 94 printable ASCII characters (ids 0-93), the space as "\u0120" (94) and the
# special token <|end|> (95): a text's ids for the golden models' 96-token vocabularies.
one_char_tokenizer() {
    python3 - "$1" <<'PY'
import json, sys
vocab = {chr(33 + i): i for i in range(94)}
vocab["\u0120"] = 94  # byte-level BPE's space
json.dump({"version": "1.0", "normalizer": None,
           "added_tokens": [{"id": 95, "content": "<|end|>", "special": True, "normalized": False,
                             "single_word": False, "lstrip": False, "rstrip": False}],
           "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
           "decoder": {"type": "ByteLevel"},
           "model": {"type": "BPE", "vocab": vocab, "merges": []}}, open(sys.argv[1], "w"))
PY
}
