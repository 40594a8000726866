#!/usr/bin/env bash
# The Hugging Face cache attnscope writes is the one Hugging Face's own tools read, and the
# reverse: Hugging Face's JavaScript Hub library (npm's @huggingface/hub, which writes the
# Python huggingface_hub's layout; Debian 12 packages neither) downloads from the Hub on
# 127.0.0.1 (tests/hub/fake_hub.py) into a cache that `attnscope-cli --model ORG/NAME` then
# runs offline; and a model attnscope downloaded is found by the library's scanCacheDir
# (refs/main, its commit, every file's size) and resolved by its downloadFileToCacheDir with
# no server. The npm package is fetched into BUILD_DIR/npm-hf-hub once. Exit 77 (ctest:
# skipped) only if npm's registry cannot be reached.
# Usage: tests/cli_hub_interop.test.sh BUILD_DIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cli_lib.sh" "${1:-}"
TESTS=$here
source "$here/tiny_llama_hub.sh"  # one_char_tokenizer
cache="$build/npm-hf-hub"
modules="$cache/node_modules"
unset HF_TOKEN HF_TOKEN_PATH HF_HUB_OFFLINE HF_HOME XDG_CACHE_HOME
export HOME=$tmp/home

npm_oracle "$here/hub" "$cache" @huggingface/hub

mkdir -p "$tmp/repos/gpt" "$tmp/repos/qwen"
cp "$here/../assets/models/sotu-small/config.json" "$here/../assets/models/sotu-small/model.safetensors" "$tmp/repos/gpt/"
cp "$here"/golden/llama/qwen2-bias-f16-shards/* "$tmp/repos/qwen/"
one_char_tokenizer "$tmp/repos/qwen/tokenizer.json"
"$python" "$here/hub/fake_hub.py" --port-file "$tmp/port" --log "$tmp/hub.log" \
    --repo test/gpt="$tmp/repos/gpt" --repo test/qwen="$tmp/repos/qwen" &
hub_pid=$!
trap 'kill $hub_pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [[ -s $tmp/port ]] && break; sleep 0.1; done
hub="http://127.0.0.1:$(cat "$tmp/port")"
export HF_ENDPOINT=$hub
same_run() {
    "$python" -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [m["model"].pop(k, None) for m in (a, b) for k in ("name", "file")]; sys.exit(a != b)' "$1" "$2"
}

# The library writes, attnscope reads (offline: nothing may be fetched again).
"$cli" --model "$tmp/repos/gpt" --text "the nation" >"$tmp/local.json"
if node "$here/hub/interop.mjs" "$modules" download "$hub" "$tmp/c1" test/gpt >"$tmp/snap" 2>"$tmp/err" &&
   HF_HUB_OFFLINE=1 HF_HUB_CACHE=$tmp/c1 "$cli" --model test/gpt --text "the nation" >"$tmp/from-js.json" 2>"$tmp/err" &&
   same_run "$tmp/local.json" "$tmp/from-js.json"; then
    echo "ok:   a snapshot @huggingface/hub downloaded runs in attnscope offline, as its folder does"
    passed=$((passed + 1))
else
    fail "the library's cache read by attnscope" "$(head -c 300 "$tmp/err")"
fi

# attnscope writes, the library reads.
commit=$(printf 'test/qwen@main' | sha1sum | cut -d' ' -f1)
if HF_HUB_CACHE=$tmp/c2 "$cli" --model test/qwen --ids 5,17 >/dev/null 2>"$tmp/err" &&
   node "$here/hub/interop.mjs" "$modules" read "$tmp/c2" test/qwen >"$tmp/scan.json" 2>"$tmp/err" &&
   "$python" - "$tmp/scan.json" "$commit" "$tmp/repos/qwen" <<'PY'
import json, os, sys
scan, commit, folder = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
assert not scan["warnings"], scan["warnings"]
[rev] = scan["revisions"]
assert rev["commit"] == commit and rev["refs"] == ["main"], rev
want = sorted([name, os.path.getsize(os.path.join(folder, name))] for name in os.listdir(folder))
assert rev["files"] == want, (rev["files"], want)
for path in scan["paths"]:  # resolved in the cache, and the same bytes
    name = os.path.basename(path)
    assert open(path, "rb").read() == open(os.path.join(folder, name), "rb").read(), name
PY
then
    echo "ok:   a model attnscope downloaded: scanCacheDir finds refs/main, the commit and every file's size; downloadFileToCacheDir resolves each with no server"
    passed=$((passed + 1))
else
    fail "attnscope's cache read by the library" "$(head -c 300 "$tmp/err")"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
