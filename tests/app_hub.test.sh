#!/bin/bash
# Models from the Hugging Face Hub in the app (issue 56), against a Hub on 127.0.0.1
# (tests/hub/fake_hub.py) serving the shipped model's files as openai-community/gpt2 at 2 MB/s:
# `attnscope --model ORG/NAME` downloads it and opens it; the model list offers the Hub's
# models with their sizes; while one downloads the window keeps drawing (frames go on), a
# progress bar with bytes, rate and time left shows, and Cancel stops it with what came kept;
# chosen again it goes on from there (a Range request) and opens; a repository the Hub has not
# is explained in place and the last view stays; closing the window mid-download exits 0;
# --revision opens that branch's snapshot.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display

mkdir -p "$WORK/repo"
cp "$TESTS/../assets/models/sotu-small/config.json" "$TESTS/../assets/models/sotu-small/model.safetensors" "$WORK/repo/"
sha=$(sha256sum "$WORK/repo/model.safetensors" | cut -d' ' -f1)
unset HF_TOKEN HF_HUB_OFFLINE HF_HOME
export HF_HUB_CACHE="$WORK/cache" HOME="$WORK/home"
HUB_PID=
start_hub() {  # start_hub ARGS...: the fake Hub; HF_ENDPOINT names it
    [ -n "$HUB_PID" ] && kill "$HUB_PID" 2>/dev/null
    rm -f "$WORK/port"
    /usr/bin/python3 "$TESTS/hub/fake_hub.py" --port-file "$WORK/port" --log "$WORK/hub.log" \
        --repo openai-community/gpt2="$WORK/repo" --repo test/gpt="$WORK/repo" --branch test/gpt@v1="$WORK/repo" "$@" &
    HUB_PID=$!
    for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
    export HF_ENDPOINT="http://127.0.0.1:$(cat "$WORK/port")"
}
trap '[ -n "$HUB_PID" ] && kill "$HUB_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
"$CLI" --model "$TESTS/../assets/models/sotu-small" --text "the nation" >"$WORK/cli.json"
opened() {  # opened REPO: the state once REPO's run is on screen, its next tokens the CLI's
    echo "$(settled) and s['model_run'] is not None and s['model_run']['name'] == '$1' and \
[t['id'] for t in s['model_run']['next_token']] == $(json "$WORK/cli.json" "[t['id'] for t in s['next_token']]")"
}

start_hub
start_app --model test/gpt --text "the nation"
check "--model test/gpt, not in the cache: downloaded, then opened with the folder's next tokens" wait_state "$(opened test/gpt)"
check "into the cache's layout" test -L "$HF_HUB_CACHE/models--test--gpt/snapshots/$(printf 'test/gpt@main' | sha1sum | cut -d' ' -f1)/model.safetensors"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0

# --revision: the branch's snapshot, downloaded, then opened as its folder (as the CLI does).
v1="$HF_HUB_CACHE/models--test--gpt/snapshots/$(printf 'test/gpt@v1' | sha1sum | cut -d' ' -f1)"
start_app --model test/gpt --revision v1 --text "the nation"
check "--revision v1: that branch's snapshot downloaded and opened" wait_state "$(opened "$v1")"
check "refs/v1 names it" test "$(cat "$HF_HUB_CACHE/models--test--gpt/refs/v1")" = "$(basename "$v1")"
quit_app
start_app --model test/gpt --revision v1 --text "the nation"
check "--revision v1 again: opened from the cache" wait_state "$(opened "$v1")"
quit_app

start_hub --rate 2000000
start_app --text "the nation"
wait_state "$(settled 1)" >/dev/null
read -r x y <<<"$(widget_centre model)"
click "$x" "$y"
check "the model list offers the Hub's models" wait_state "'hub_entry_6' in s['widgets']"
pick_entry hub_entry_0
check "GPT-2 small chosen: its download shows bytes and a Cancel" \
    wait_state "'downloading openai-community/gpt2: model.safetensors (1/1): ' in s['activity'] and ' MB/s, ' in s['activity'] and 'hub_cancel' in s['widgets']"
frame=$(json "$STATE" "s['frame']")
check "the window keeps drawing while it downloads" wait_state "s['frame'] >= $frame + 5 and s['computing']"
window_shot "$WORK/downloading.png"
check "the screenshot shows the list and the bar" test -s "$WORK/downloading.png"
click_until hub_cancel "'was cancelled' in (s['error'] or '')" "cancel the download"
part="$HF_HUB_CACHE/models--openai-community--gpt2/blobs/$sha.incomplete"
check "cancelled: the chapter 3 view stays, what came is kept beside its blob" \
    bash -c "test -s '$part' && test \$(stat -c %s '$part') -lt \$(stat -c %s '$WORK/repo/model.safetensors')"
kept=$(stat -c %s "$part")
read -r x y <<<"$(widget_centre model)"
click "$x" "$y"
wait_state "'hub_entry_0' in s['widgets']" >/dev/null
pick_entry hub_entry_0
check "chosen again, it goes on from the bytes kept and opens" wait_state "$(opened openai-community/gpt2)"
check "with a Range request from where it stopped" grep -Eq "GET /cdn/$sha range=bytes=[1-9][0-9]*- " "$WORK/hub.log"
check "no .incomplete left" test ! -e "$part"

read -r x y <<<"$(widget_centre model)"
click "$x" "$y"
wait_state "'hub_repo' in s['widgets']" >/dev/null
activate hub_repo
type_text "test/absent"
click_until hub_get "'no repository test/absent on the Hub' in (s['error'] or '')" "get test/absent"
check "a repository the Hub has not: said in place, the last view stays" \
    wait_state "s['model_run'] is not None and s['model_run']['name'] == 'openai-community/gpt2' and 'no repository test/absent' in (s['error'] or '')"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0

# Closing the window during a download: the transfer stops, the app exits at once, cleanly.
rm -rf "$HF_HUB_CACHE"
start_app --model test/gpt --text "the nation"
wait_state "'downloading test/gpt' in s['activity']" >/dev/null
quit_app
check "closed mid-download: exit 0" test "$APP_EXIT" -eq 0
finish
