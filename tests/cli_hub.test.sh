#!/usr/bin/env bash
# `attnscope-cli --model ORG/NAME` downloading from a Hub on 127.0.0.1 (tests/hub/fake_hub.py
# answers as huggingface.co does: resolve URLs, redirects to a file server, the size and
# SHA-256 headers, ranges, 401 for a gated repository, 404): the shipped GPT-2-type model and
# the golden sharded Qwen2 model arrive in the Hugging Face cache's own layout and run as their
# folders do; a second run touches no network; an interrupted transfer and a stranded
# .incomplete are resumed by a Range request; a corrupted byte is refused and nothing of it
# kept; a gated repository needs HF_TOKEN or the token file; --revision; then each failure is
# one line and exit 2.
# Usage: tests/cli_hub.test.sh BUILD_DIR   (ctest passes the build directory)
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cli_lib.sh" "${1:-}"
TESTS=$here
source "$here/tiny_llama_hub.sh"  # one_char_tokenizer
unset HF_TOKEN HF_TOKEN_PATH HF_HUB_OFFLINE HF_HOME XDG_CACHE_HOME
export HOME=$tmp/home  # never the user's token file or cache

# The repositories' folders.
mkdir -p "$tmp/repos/gpt" "$tmp/repos/qwen" "$tmp/repos/bert"
cp "$here/../assets/models/sotu-small/config.json" "$here/../assets/models/sotu-small/model.safetensors" "$tmp/repos/gpt/"
cp "$here"/golden/llama/qwen2-bias-f16-shards/* "$tmp/repos/qwen/"
one_char_tokenizer "$tmp/repos/qwen/tokenizer.json"
echo '{"model_type": "bert", "hidden_size": 8}' >"$tmp/repos/bert/config.json"
cp "$tmp/repos/gpt/model.safetensors" "$tmp/repos/bert/"
gpt_sha=$(sha256sum "$tmp/repos/gpt/model.safetensors" | cut -d' ' -f1)
gpt_size=$(stat -c %s "$tmp/repos/gpt/model.safetensors")

hub_pid=
# start_hub ARGS...: fake_hub.py with the repositories and ARGS; HF_ENDPOINT names it.
start_hub() {
    stop_hub
    rm -f "$tmp/port" "$tmp/hub.log"
    "$python" "$here/hub/fake_hub.py" --port-file "$tmp/port" --log "$tmp/hub.log" \
        --repo test/gpt="$tmp/repos/gpt" --repo test/qwen="$tmp/repos/qwen" --repo test/bert="$tmp/repos/bert" \
        --repo test/gated="$tmp/repos/gpt" --gated test/gated --repo test/huge="$tmp/repos/gpt" --huge test/huge \
        --branch test/qwen@other="$tmp/repos/qwen" --renamed test/old=test/gpt "$@" &
    hub_pid=$!
    for _ in $(seq 100); do [[ -s $tmp/port ]] && break; sleep 0.1; done
    export HF_ENDPOINT="http://127.0.0.1:$(cat "$tmp/port")"
    touch "$tmp/hub.log"
}
stop_hub() {
    if [[ -n $hub_pid ]]; then kill "$hub_pid" 2>/dev/null; wait "$hub_pid" 2>/dev/null; fi
    hub_pid=
}
trap 'stop_hub; rm -rf "$tmp"' EXIT
ok() { echo "ok:   $1"; passed=$((passed + 1)); }
# same_run A B: two model runs' JSON equal but for the model's name and file
same_run() {
    "$python" -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [m["model"].pop(k, None) for m in (a, b) for k in ("name", "file")]; sys.exit(a != b)' "$1" "$2"
}
commit_of() { printf '%s' "$1@$2" | sha1sum | cut -d' ' -f1; }

start_hub
repo=$tmp/c1/models--test--gpt
main=$(commit_of test/gpt main)
"$cli" --model "$here/../assets/models/sotu-small" --text "the nation" >"$tmp/local.json"
if HF_HUB_CACHE=$tmp/c1 "$cli" --model test/gpt --text "the nation" >"$tmp/hub.json" 2>"$tmp/err" &&
   same_run "$tmp/local.json" "$tmp/hub.json" && [[ ! -s $tmp/err ]]; then
    ok "a GPT-2-type repository downloads and runs as its folder does, quietly when stderr is no terminal"
else
    fail "download and run" "$(head -c 300 "$tmp/err")"
fi
# The cache's own layout: refs/main, snapshot links into blobs named by digest.
if [[ $(cat "$repo/refs/main") == "$main" &&
      $(readlink "$repo/snapshots/$main/model.safetensors") == "../../blobs/$gpt_sha" &&
      $(readlink "$repo/snapshots/$main/config.json") == ../../blobs/$(git hash-object "$tmp/repos/gpt/config.json") &&
      $(stat -c %s "$repo/blobs/$gpt_sha") -eq $gpt_size && -z $(find "$repo" -name '*.incomplete') ]]; then
    ok "the cache: refs/main names the commit, links to blobs named by SHA-256 and git SHA-1, nothing incomplete"
else
    fail "cache layout" "$(find "$repo" -printf '%p -> %l\n' | head -20)"
fi
grep -q "auth=yes" "$tmp/hub.log" && fail "no token" "a token was sent with none set" || ok "no token sent when none is set"

requests=$(wc -l <"$tmp/hub.log")
if HF_HUB_CACHE=$tmp/c1 "$cli" --model test/gpt --text "the nation" >"$tmp/again.json" 2>"$tmp/err" &&
   same_run "$tmp/local.json" "$tmp/again.json" && [[ $(wc -l <"$tmp/hub.log") -eq $requests ]]; then
    ok "a model in the cache runs without a request"
else
    fail "cached run" "$(( $(wc -l <"$tmp/hub.log") - requests )) requests"
fi
stop_hub
if HF_HUB_OFFLINE=1 HF_HUB_CACHE=$tmp/c1 "$cli" --model test/gpt --text "the nation" >"$tmp/offline.json" 2>"$tmp/err" &&
   same_run "$tmp/local.json" "$tmp/offline.json"; then
    ok "HF_HUB_OFFLINE=1 runs the cached model with no server"
else
    fail "offline" "$(head -c 300 "$tmp/err")"
fi
HF_HUB_OFFLINE=1 HF_HUB_CACHE=$tmp/c1 expect_error "offline, a model not in the cache" \
    "test/qwen is not in the Hugging Face cache .* and HF_HUB_OFFLINE is set" --model test/qwen --ids 1,2

start_hub
"$cli" --model "$tmp/repos/qwen" --ids 5,17,40 >"$tmp/local-qwen.json"
"$cli" --model "$tmp/repos/qwen" --text "a b" >"$tmp/local-qwen-text.json"
qrepo=$tmp/c2/models--test--qwen
qmain=$(commit_of test/qwen main)
if HF_HUB_CACHE=$tmp/c2 "$cli" --model test/qwen --ids 5,17,40 >"$tmp/hub-qwen.json" 2>"$tmp/err" &&
   same_run "$tmp/local-qwen.json" "$tmp/hub-qwen.json" &&
   HF_HUB_CACHE=$tmp/c2 "$cli" --model test/qwen --text "a b" >"$tmp/hub-qwen-text.json" &&
   same_run "$tmp/local-qwen-text.json" "$tmp/hub-qwen-text.json" &&
   [[ -L $qrepo/snapshots/$qmain/model-00001-of-00002.safetensors && -L $qrepo/snapshots/$qmain/model-00002-of-00002.safetensors &&
      -L $qrepo/snapshots/$qmain/tokenizer.json && -L $qrepo/snapshots/$qmain/model.safetensors.index.json ]]; then
    ok "a sharded Qwen2 repository: config, tokenizer, index and both shards arrive; ids and text run as its folder does"
else
    fail "sharded download" "$(head -c 300 "$tmp/err")"
fi

other=$(commit_of test/qwen other)
if HF_HUB_CACHE=$tmp/c2 "$cli" --model test/qwen --revision other --ids 5,17,40 >"$tmp/other.json" 2>"$tmp/err" &&
   same_run "$tmp/local-qwen.json" "$tmp/other.json" && [[ $(cat "$qrepo/refs/other") == "$other" &&
   -L $qrepo/snapshots/$other/model-00002-of-00002.safetensors ]] &&
   HF_HUB_CACHE=$tmp/c3 "$cli" --model test/qwen --revision "$other" --ids 5,17,40 >"$tmp/by-commit.json" &&
   same_run "$tmp/local-qwen.json" "$tmp/by-commit.json" && [[ -d $tmp/c3/models--test--qwen/snapshots/$other &&
   ! -e $tmp/c3/models--test--qwen/refs/$other ]]; then
    ok "--revision: a branch gets refs/BRANCH and its commit's snapshot; a commit is fetched as itself"
else
    fail "--revision" "$(head -c 300 "$tmp/err")"
fi
HF_HUB_CACHE=$tmp/c3 expect_error "a revision the repository has not" "test/qwen has no revision nope" \
    --model test/qwen --revision nope --ids 1

if HF_HUB_CACHE=$tmp/c4 "$cli" --model test/old --text "the nation" >"$tmp/renamed.json" 2>"$tmp/err" &&
   same_run "$tmp/local.json" "$tmp/renamed.json"; then
    ok "a renamed repository: the Hub's relative redirect is followed"
else
    fail "renamed" "$(head -c 300 "$tmp/err")"
fi

# An interrupted transfer goes on from where it stopped.
start_hub --cut-first 1000000
if HF_HUB_CACHE=$tmp/c5 "$cli" --model test/gpt --text "the nation" >"$tmp/cut.json" 2>"$tmp/err" &&
   same_run "$tmp/local.json" "$tmp/cut.json" && grep -q "GET /cdn/$gpt_sha range=bytes=1000000-" "$tmp/hub.log"; then
    ok "a transfer cut after 1000000 bytes is resumed with Range: bytes=1000000-"
else
    fail "resume" "$(grep cdn "$tmp/hub.log" | head -5)"
fi
# As is one a previous run left (a killed process, a Cancel).
start_hub
mkdir -p "$tmp/c6/models--test--gpt/blobs"
head -c 5000000 "$tmp/repos/gpt/model.safetensors" >"$tmp/c6/models--test--gpt/blobs/$gpt_sha.incomplete"
if HF_HUB_CACHE=$tmp/c6 "$cli" --model test/gpt --text "the nation" >"$tmp/stranded.json" 2>"$tmp/err" &&
   same_run "$tmp/local.json" "$tmp/stranded.json" && grep -q "GET /cdn/$gpt_sha range=bytes=5000000-" "$tmp/hub.log" &&
   [[ $(sha256sum <"$tmp/c6/models--test--gpt/blobs/$gpt_sha" | cut -d' ' -f1) == "$gpt_sha" ]]; then
    ok "a .incomplete left by an earlier run is resumed from its 5000000 bytes"
else
    fail "stranded .incomplete" "$(grep cdn "$tmp/hub.log" | head -5)"
fi

# Two downloads of one model at once: the second waits on the blob's lock (huggingface_hub's,
# CACHE/.locks/) and finds the first one's file: one transfer, both runs right.
start_hub --rate 8000000
HF_HUB_CACHE=$tmp/c11 "$cli" --model test/gpt --text "the nation" >"$tmp/twin1.json" 2>"$tmp/twin1.err" &
twin=$!
HF_HUB_CACHE=$tmp/c11 "$cli" --model test/gpt --text "the nation" >"$tmp/twin2.json" 2>"$tmp/twin2.err"
second=$?
wait "$twin"
first=$?
if [[ $first -eq 0 && $second -eq 0 ]] && same_run "$tmp/local.json" "$tmp/twin1.json" && same_run "$tmp/local.json" "$tmp/twin2.json" &&
   [[ $(grep -c "GET /cdn/$gpt_sha " "$tmp/hub.log") -eq 1 && -e $tmp/c11/.locks/models--test--gpt/$gpt_sha.lock ]]; then
    ok "two downloads of one model at once: one transfer under the blob's lock, both runs right"
else
    fail "two at once" "exits $first $second, $(grep -c "GET /cdn/$gpt_sha " "$tmp/hub.log") transfers; $(cat "$tmp/twin1.err" "$tmp/twin2.err")"
fi

# A corrupted byte is refused and nothing of it is kept.
start_hub --corrupt model.safetensors
HF_HUB_CACHE=$tmp/c7 expect_error "a corrupted byte" \
    "test/gpt's model.safetensors arrived corrupt \(its SHA-256 is not the Hub's\): nothing of it was kept" \
    --model test/gpt --text hi
if [[ ! -e $tmp/c7/models--test--gpt/blobs/$gpt_sha && -z $(find "$tmp/c7" -name '*.incomplete') &&
      ! -e $tmp/c7/models--test--gpt/refs/main && ! -e $tmp/c7/models--test--gpt/snapshots/$main/model.safetensors ]]; then
    ok "after the corrupt download: no blob, no .incomplete, no refs/main, no link"
else
    fail "corrupt leftovers" "$(find "$tmp/c7" | head)"
fi

start_hub
HF_HUB_CACHE=$tmp/c8 expect_error "a gated repository without a token" \
    "^attnscope-cli: test/gated is gated: it needs a token that has accepted its licence: set HF_TOKEN$" --model test/gated --text hi
HF_TOKEN=hf_wrong HF_HUB_CACHE=$tmp/c8 expect_error "a gated repository with a token that has no access" \
    "test/gated is gated and the token sent has not accepted its licence: accept it at http://127.0.0.1:[0-9]+/test/gated" \
    --model test/gated --text hi
if HF_TOKEN=hf_test_token HF_HUB_CACHE=$tmp/c8 "$cli" --model test/gated --text "the nation" >"$tmp/gated.json" 2>"$tmp/err" &&
   same_run "$tmp/local.json" "$tmp/gated.json" && ! grep -q "GET /cdn/.* auth=yes" "$tmp/hub.log" &&
   grep -q "HEAD /test/gated/resolve/main/config.json range=- auth=yes" "$tmp/hub.log"; then
    ok "HF_TOKEN opens a gated repository, sent to the Hub and not to the file server"
else
    fail "gated with HF_TOKEN" "$(head -c 300 "$tmp/err")"
fi
mkdir -p "$tmp/hfhome"
echo "hf_test_token" >"$tmp/hfhome/token"
if HF_HOME=$tmp/hfhome "$cli" --model test/gated --text "the nation" >"$tmp/gated2.json" 2>"$tmp/err" &&
   same_run "$tmp/local.json" "$tmp/gated2.json" && [[ -L $tmp/hfhome/hub/models--test--gated/snapshots/$(commit_of test/gated main)/model.safetensors ]]; then
    ok "the token file the Hub's tools write (\$HF_HOME/token) opens it too, into \$HF_HOME/hub"
else
    fail "token file" "$(head -c 300 "$tmp/err")"
fi

HF_HUB_CACHE=$tmp/c9 expect_error "no such repository" \
    "no repository test/absent on the Hub at http://127.0.0.1:[0-9]+ \(a private one needs HF_TOKEN\)" --model test/absent --text hi
HF_HUB_CACHE=$tmp/c9 expect_error "an architecture attnscope does not run" \
    "test/bert is a bert model \(its config.json\): attnscope runs gpt2, llama, qwen2 and qwen3 models" --model test/bert --text hi
: >"$tmp/hub.log"
HF_HUB_CACHE=$tmp/c9 expect_error "no room on the disk, known before the first byte" \
    "no room for test/huge in .*c9: it needs .* more, the disk has .* free" --model test/huge --text hi
grep -q "GET /cdn" "$tmp/hub.log" && fail "no room" "a transfer started" || ok "nothing was transferred for a model without room"
HF_ENDPOINT=http://127.0.0.1:9 HF_HUB_CACHE=$tmp/c9 expect_error "no network" \
    "cannot reach the Hub at http://127.0.0.1:9 \(.*\): set HF_HUB_OFFLINE=1 to use only the cache" --model test/gpt --text hi
expect_error "--revision without a repository" "--revision pins the branch, tag or commit of --model ORG/NAME" \
    --model sotu-small --revision main --text hi

# On a terminal, a progress bar with the file, bytes and the end's summary.
if HF_HUB_CACHE=$tmp/c10 script -qefc "'$cli' --model test/qwen --ids 5 >/dev/null" "$tmp/tty.txt" >/dev/null 2>&1 &&
   grep -aq "test/qwen \[#*\.*\] model-00002-of-00002.safetensors (3/3): .* of " "$tmp/tty.txt" &&
   grep -aq "test/qwen: .* in [0-9]* s into $tmp/c10/models--test--qwen/snapshots/$qmain" "$tmp/tty.txt"; then
    ok "on a terminal: a progress bar (file, bar, bytes of the total) and a last line saying where it went"
else
    fail "progress bar" "$(tr '\r' '\n' <"$tmp/tty.txt" | tail -3)"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
