#!/bin/bash
# Chapter 2 in the app: the tokenizer selector, token chips (ids, special and <|unk|>
# marks, GPT-2 word groups), the corpus field and its errors, the context length,
# the sliding-window view, a 1 MB paste and CJK glyphs. Drives the real window.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
command -v xclip >/dev/null || { echo "missing xclip (apt-get install xclip): it holds the 1 MB paste"; exit 1; }
in_own_display

BOOK="Hello, do you like tea? <|endoftext|> In the sunlit terracesof someunknownPlace."
BOOK_IDS="[15496, 11, 466, 345, 588, 8887, 30, 220, 50256, 554, 262, 4252, 18250, 8812, 2114, 1659, 617, 34680, 27271, 13]"

# share PNG STATE CHIP R G B MIN: the fraction of chip CHIP's pixels that are (R, G B) is at least MIN.
share() {
    python3 - "$TESTS" "$@" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
from app_png import read_png
png, state, chip, r, g, b, least = sys.argv[2], sys.argv[3], int(sys.argv[4]), *map(int, sys.argv[5:8]), float(sys.argv[8])
x0, y0, x1, y1 = (int(v) for v in json.load(open(state))["chips"][chip]["rect"])
_, _, rows = read_png(png)
box = [rows[y][x] for y in range(y0 + 1, y1 - 1) for x in range(x0 + 1, x1 - 1)]
hit = sum(1 for p in box if all(abs(p[i] - c) <= 3 for i, c in enumerate((r, g, b)))) / len(box)
print("%.2f of the chip" % hit)
sys.exit(0 if hit >= least else 1)
EOF
}
# shot NAME FLAGS...: a --screenshot run in this display; the PNG and state are $WORK/NAME.{png,json}
shot() {
    local name=$1; shift
    timeout "$HANG" "$APP" "$@" --state-out "$WORK/$name.json" --screenshot "$WORK/$name.png" --frames 3 \
        >"$WORK/$name.log" 2>&1
}
# type_into WIDGET TEXT: replaces the text of a text field
type_into() {
    activate "$1"
    hold ctrl+a
    type_text "$2"
}
# load_corpus PATH: types it into the corpus field and presses Load
load_corpus() {
    type_into corpus "$1"
    read -r x y <<<"$(widget_centre corpus_load)"
    click "$x" "$y"
}

# --- GPT-2: the book's ids, the special chip in its colour, one word's pieces grouped ---
shot gpt2 --tokenizer gpt2 --text "$BOOK"
G="$WORK/gpt2.json"
check "gpt2 ids are the book's" test "$(json "$G" "s['token_ids']")" = "$BOOK_IDS"
check "gpt2 screenshot is not blank" $PNG nonblank "$WORK/gpt2.png"
check "the state names the tokenizer" test "$(json "$G" "s['tokenizer']")" = gpt2
check "only <|endoftext|> is special" test "$(json "$G" "[c['text'] for c in s['chips'] if c['special']]")" = \
    '["<|endoftext|>"]'
check "someunknownPlace is one word of three pieces" test "$(json "$G" \
    "[c['text'] for c in s['chips'] if c['word'] == s['chips'][16]['word']]")" = '[" some", "unknown", "Place"]'
check "the special chip is drawn in its colour" share "$WORK/gpt2.png" "$G" 8 255 208 100 0.3
check "an ordinary chip is not" not share "$WORK/gpt2.png" "$G" 0 255 208 100 0.05

# --- context length: a text longer than the positional table says why ---
shot ctx --tokenizer gpt2 --text "$BOOK" --pos --context-length 4
check "context_length 4 is in the state" test "$(json "$WORK/ctx.json" "s['context_length']")" = 4
check "a 20-token text with context_length 4 is refused" grep -q "more than context_length 4" \
    <(json "$WORK/ctx.json" "s['error']")

# --- the real window: switch tokenizer, load a corpus, a missing one, sliding window ---
CORPUS="$WORK/corpus.txt"
echo "Hello, do you like tea? In the sunlit terraces of the palace." >"$CORPUS"
printf 'text\0with a NUL' >"$WORK/binary.txt"
start_app --tokenizer gpt2 --text "$BOOK"
wait_state "$(settled) and s['tokenizer'] == 'gpt2'"
read -r x y <<<"$(widget_centre tokenizer_simple)"
click "$x" "$y"
wait_state "s['tokenizer'] == 'simple' and not s['computing'] and len(s['tokens']) == 14"
"$CLI" --tokenizer simple --text "$BOOK" --stages inputs >"$WORK/simple-cli.json"
check "clicking 'simple' shows SimpleTokenizerV2's ids (as the CLI)" test \
    "$(json "$STATE" "[s['tokens'], s['token_ids']]")" = "$(json "$WORK/simple-cli.json" "[s['tokens'], s['token_ids']]")"

load_corpus "$CORPUS"
wait_state "s['corpus'] == '$CORPUS' and not s['computing'] and '<|unk|>' in s['tokens']"
check "words outside the corpus become <|unk|> chips" test "$(json "$STATE" \
    "[c['text'] for c in s['chips'] if c['unk']]")" = '["<|unk|>", "<|unk|>"]'
unk=$(json "$STATE" "[i for i, c in enumerate(s['chips']) if c['unk']][0]")
window_shot "$WORK/unk.png"
check "an <|unk|> chip is drawn in its colour" share "$WORK/unk.png" "$STATE" "$unk" 255 170 170 0.3

load_corpus "$WORK/no-such-file.txt"
wait_state "s['corpus_error'] is not None"
check "a missing corpus says so" grep -q "not found" <(json "$STATE" "s['corpus_error']")
check "a missing corpus keeps the vocabulary in use" test "$(json "$STATE" "s['corpus']")" = "$CORPUS"
check "the view keeps its <|unk|> chips" test "$(json "$STATE" "sum(c['unk'] for c in s['chips'])")" = 2
load_corpus "$WORK/binary.txt"
wait_state "'looks binary' in (s['corpus_error'] or '')"
corpus_error=$(json "$STATE" "s['corpus_error']")
check "a binary corpus says so (got: $corpus_error)" grep -q "looks binary" <<<"$corpus_error"
check "the app is still running" kill -0 "$APP_PID"

read -r x y <<<"$(widget_centre window_header)"
click "$x" "$y"
wait_state "'window_stride' in s['widgets']"
check "sliding window: 14 tokens, max_length 4, stride 1 give 10 pairs" test \
    "$(json "$STATE" "[s['window']['max_length'], s['window']['stride'], s['window']['pairs']]")" = "[4, 1, 10]"
slider_to window_stride 2
check "stride 2 gives 5 pairs" wait_state "s['window']['stride'] == 2 and s['window']['pairs'] == 5"
window_shot "$WORK/window.png"
slider_to window_max_length 0
wait_state "s['window']['error'] is not None"
check "max_length 0 shows the core's message" grep -q "max_length must be at least 1" \
    <(json "$STATE" "s['window']['error']")
quit_app
check "quits cleanly" test "$APP_EXIT" -eq 0

# --- a 1 MB paste: the window keeps drawing and says why it shows the last good view ---
python3 -c 'print("word " * 200000, end="")' >"$WORK/big.txt"
xclip -quiet -selection clipboard -i "$WORK/big.txt" >/dev/null 2>&1 &
CLIP=$!
start_app --text "hello there"
wait_state "$(settled)"
activate text
hold ctrl+a
paste_once
wait_state "len(s['text']) >= 1000000 and s['error'] is not None and not s['computing']"
check "a 1 MB paste is refused with the token cap" grep -q "tokens; at most 8192" <(json "$STATE" "s['error']")
check "the last good chips stay" test "$(json "$STATE" "[c['text'] for c in s['chips']]")" = '["hello", "there"]'
read -r x y <<<"$(widget_centre tokenizer_gpt2)"
click "$x" "$y"
# The megabyte is tokenized with GPT-2's pieces, then refused by the token cap before any
# run starts: the app answers, with the refusal, and the last good chips stay.
check "with 1 MB in the box, switching to GPT-2 answers with the token cap" \
    wait_state "s['tokenizer'] == 'gpt2' and not s['computing'] and 'at most 8192' in (s['error'] or '')"
check "after the switch the last good chips stay" test "$(json "$STATE" "[c['text'] for c in s['chips']]")" = '["hello", "there"]'
quit_app
check "quits cleanly after the paste" test "$APP_EXIT" -eq 0
kill "$CLIP" 2>/dev/null
wait "$CLIP" 2>/dev/null

# 100 KB for GPT-2 (an argument: Linux caps one at 128 KB) and a 600-token text.
shot big-gpt2 --tokenizer gpt2 --text "$(python3 -c 'print("The quick brown fox jumps. " * 4000, end="")')"
check "100 KB with GPT-2 renders" test -s "$WORK/big-gpt2.png"
check "100 KB with GPT-2 says the token cap" grep -q "at most 8192" <(json "$WORK/big-gpt2.json" "s['error']")
shot many --text "$(python3 -c 'print(" ".join(f"w{i}" for i in range(600)))')"
check "600 tokens: only 512 chips are drawn" test "$(json "$WORK/many.json" "len(s['chips'])")" = 512

# --- CJK: 你好 is drawn with its own glyphs, not the '?' of a missing one ---
shot cjk --text "你好"
shot qq --text "??"
check "CJK chip pixels differ from '??'" python3 - "$TESTS" "$WORK" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
from app_png import read_png
def chip(name):
    x0, y0, x1, y1 = (int(v) for v in json.load(open(f"{sys.argv[2]}/{name}.json"))["chips"][0]["rect"])
    _, _, rows = read_png(f"{sys.argv[2]}/{name}.png")
    return [row[x0:x1] for row in rows[y0:y1]]
a, b = chip("cjk"), chip("qq")
print("chip sizes", len(a[0]), "x", len(a), "and", len(b[0]), "x", len(b))
sys.exit(0 if a != b else 1)
EOF
finish
