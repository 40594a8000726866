#!/bin/bash
# The app starts, renders and writes a non-blank screenshot for every variant and
# for a few settings that stress the layout (many heads, UI scale, long text).
source "$(dirname "$0")/app_lib.sh"
need xvfb-run python3

shot() {  # shot NAME FLAGS...
    local name=$1; shift
    local png="$WORK/$name.png"
    if headless "$APP" "$@" --screenshot "$png" --frames 3 >"$WORK/$name.log" 2>&1 && [ -s "$png" ]; then
        check "$name renders a non-blank window" $PNG nonblank "$png"
    else
        fail "$name: exit $? $(tail -2 "$WORK/$name.log")"
    fi
}

for variant in simplified self-v1 self-v2 causal mha-wrapper mha cross; do
    shot "$variant" --variant "$variant"
done
shot cross-two-texts --variant cross --text "the cat sat" --text2 "a dog ran off" --d-in 4
shot mha-12-heads --variant mha --heads 12 --d-in 24 --d-out 24 --dropout 0.1 --qkv-bias --pos \
    --text "one two three four five six seven eight"
shot ui-scale-2 --ui-scale 2 --variant causal --dropout 0.5
shot long-text --variant mha --heads 4 --d-in 16 --d-out 16 \
    --text "$(python3 -c 'print(" ".join(f"w{i}" for i in range(300)))')"

# Unknown flags are refused with one line and exit 2, before any window opens.
"$APP" --no-such-flag >"$WORK/bad.out" 2>&1
code=$?
check "unknown flag exits 2" test "$code" -eq 2
check "unknown flag says so in one line" test "$(wc -l <"$WORK/bad.out")" -eq 1
finish
