# Shared by the app_*.test.sh scripts: pass/fail counting and running the app.
# Needs xvfb-run (xvfb), xdotool and python3.
BUILD=${1:?usage: $0 BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
APP="$BUILD/attnscope"
CLI="$BUILD/attnscope-cli"
TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PNG="python3 $TESTS/app_png.py"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# python3 is Debian's (scripts/test.sh installs it; python3-torch is Debian's), whatever
# comes first on PATH: a pyenv shim took 0.36 s of CPU a start, and the waits below
# share the cores with the app under test.
mkdir "$WORK/bin" && ln -s /usr/bin/python3 "$WORK/bin/python3" && PATH="$WORK/bin:$PATH"
PASSED=0
FAILED=0
# Every wait for the app is bounded only against a hang: a sanitizer build on a loaded
# 2-core machine can take many seconds for a start or a frame, and that is "not yet",
# never a failure. How long things take is a benchmark's question, not a test's.
HANG=120

pass() { PASSED=$((PASSED + 1)); echo "ok   $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
not() { ! "$@"; }
check() {  # check NAME COMMAND...: passes when the command succeeds
    local name=$1; shift
    if "$@" >"$WORK/check.out" 2>&1; then pass "$name"; else fail "$name: $(tail -3 "$WORK/check.out")"; fi
}
finish() {
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}
need() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install xvfb xdotool python3)"; exit 1; }
    done
    [ -x "$APP" ] || { echo "no $APP: build the attnscope target"; exit 1; }
}
headless() { xvfb-run -a -s "-screen 0 1280x800x24" "$@"; }
json() {  # json FILE EXPR: prints EXPR evaluated on the JSON as `s`
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(json.dumps(v) if not isinstance(v, str) else v)' "$1" "$2"
}

# --- driving the real window (inside an X display) ---
# Runs this script again inside its own Xvfb display unless it already is in one.
in_own_display() {
    if [ -z "$ATTNSCOPE_IN_XVFB" ]; then
        ATTNSCOPE_IN_XVFB=1 exec xvfb-run -a -s "-screen 0 1280x800x24" bash "$0" "$BUILD"
    fi
}
start_app() {  # start_app FLAGS...: sets APP_PID and WID; the state goes to $STATE
    STATE="$WORK/state.json"
    rm -f "$STATE"
    "$APP" "$@" --state-out "$STATE" >"$WORK/app.log" 2>&1 &
    APP_PID=$!
    WID=$(timeout "$HANG" xdotool search --sync --onlyvisible --name '^attnscope' | head -1)
    if [ -n "$WID" ]; then
        xdotool windowfocus --sync "$WID"
        # The first state file comes a frame or more after the window is mapped (seconds,
        # under a sanitizer): every reader of $STATE after start_app may rely on it.
        wait_state "s['frame'] >= 1" >/dev/null || echo "no state file came; the app said: $(tail -3 "$WORK/app.log")"
    else
        echo "no window appeared; the app said: $(tail -3 "$WORK/app.log")"
    fi
}
wait_state() {  # wait_state PYTHON_EXPR [SECONDS]: until the state (as `s`) satisfies it, at most
    # SECONDS (a hang). A state file not written yet is "not yet". A running app that has
    # exited ends the wait at once. One Python process waits (tests/wait_state.py).
    python3 "$TESTS/wait_state.py" "$STATE" "$1" "${2:-$HANG}" "${APP_PID:-}"
    case $? in
        0) return 0 ;;
        2) echo "the app exited while waiting for: $1; it said: $(tail -3 "$WORK/app.log" 2>/dev/null)" ;;
    esac
    return 1
}
frames_pass() {  # frames_pass [N]: until N frames (default 2) were drawn after this call,
    # so that what the X server just delivered (a pointer move) is on screen
    local frame
    frame=$(json "$STATE" "s['frame']")
    wait_state "s['frame'] >= $frame + ${1:-2}"
}
settled() { echo "not s['computing'] and s['run_version'] >= ${1:-1}"; }
numbered_words() { python3 -c "print(' '.join('w%d' % (i % 500) for i in range($1)))"; }  # numbered_words N: N tokens
heatmap_point() {  # heatmap_point NAME FX FY: "x y" at fractions (0..1) across and down a heatmap
    json "$STATE" "'%d %d' % (s['heatmaps']['$1']['rect'][0] * (1 - $2) + s['heatmaps']['$1']['rect'][2] * $2, \
s['heatmaps']['$1']['rect'][1] * (1 - $3) + s['heatmaps']['$1']['rect'][3] * $3)"
}
wheel_until() {  # wheel_until INSIDE_EXPR MOVING_EXPR [up]: the wheel over the view's centre, a notch
    # at a time (down, or up), until the state satisfies INSIDE_EXPR (30 notches at most). Each notch waits
    # until MOVING_EXPR (a tile's top) has changed: a wheel event the X server delivers late,
    # after the loop had read the tile's place, moved it under the next click (app_model
    # failed so once in a fresh-clone CI run, the machine busy with other tests).
    local x y was
    read -r x y <<<"$(json "$STATE" "'%d %d' % ((s['viewport'][0] + s['viewport'][2]) / 2, (s['viewport'][1] + s['viewport'][3]) / 2)")"
    xdotool mousemove --window "$WID" "$x" "$y"
    for _ in $(seq 1 30); do
        [ "$(json "$STATE" "bool($1)")" = "true" ] && return 0
        was=$(json "$STATE" "$2")
        xdotool click "$([ "$3" = up ] && echo 4 || echo 5)"
        wait_state "$2 != $was" || return 1
    done
}
resident_mb() { awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$APP_PID/status"; }
under_asan() { ldd "$APP" | grep -q libasan; }  # ASan's shadow memory and quarantine are not the app's
widget_centre() {  # widget_centre NAME: "x y" of a widget's centre
    json "$STATE" "'%d %d' % ((s['widgets']['$1'][0] + s['widgets']['$1'][2]) / 2, (s['widgets']['$1'][1] + s['widgets']['$1'][3]) / 2)"
}
type_text() {  # type_text TEXT: types TEXT into the focused widget, any Unicode
    # Every non-ASCII character first gets a key of its own (tests/keymap_for.py says why).
    # Wait for the app to take the text before the next type_text remaps those keys.
    python3 "$TESTS/keymap_for.py" "$1" >"$WORK/keymap"
    [ -s "$WORK/keymap" ] && xmodmap "$WORK/keymap"
    xdotool type --delay 50 "$1"
}
hold() {  # hold KEYS: press long enough for a frame to see it (Dear ImGui 1.86 polls keys)
    xdotool keydown "$1"; sleep 0.3; xdotool keyup "$1"
}
paste_once() {  # Ctrl+V pressed and released at once: the app passes the release to the next
    # frame (app/keyboard.h). Held with keydown, sleep, keyup, a loaded machine made the hold
    # outlast Dear ImGui's 0.275 s key repeat delay, and the 2000 words were pasted 8 times.
    xdotool key ctrl+v
}
click() {  # click X Y [MODIFIER]
    xdotool mousemove --window "$WID" "$1" "$2"
    sleep 0.2
    if [ -n "$3" ]; then xdotool keydown "$3"; sleep 0.1; fi
    xdotool click 1
    if [ -n "$3" ]; then sleep 0.1; xdotool keyup "$3"; fi
    sleep 0.2
}
click_until() {  # click_until WIDGET PYTHON_EXPR WHAT [MODIFIER]: clicks a widget's centre until
    # the state satisfies PYTHON_EXPR, twice at most. The rectangle is read from a frame drawn
    # after the call (a list's first frame can place it elsewhere). Once, under load, the first
    # click after the start was lost (cause unknown): a miss is printed with what the app saw
    # of the pointer and repeated, as a user would; a second miss fails.
    local x y attempt
    for attempt in 1 2; do
        frames_pass >/dev/null
        read -r x y <<<"$(widget_centre "$1" 2>/dev/null)"
        [ -n "$y" ] || break  # gone (a list closed by the miss): nothing left to click
        click "$x" "$y" "$4"
        wait_state "$2" 10 >/dev/null && return 0
        echo "note: a click at $x $y on $1 did not $3: $(json "$STATE" \
            "'active %s, popup %s, pointer %s' % (s.get('active_widget'), s.get('popup'), s.get('pointer'))")"
    done
    fail "clicks on $1 did not $3"
    return 1
}
# activate WIDGET [MODIFIER]: keys typed into an inactive window are shortcuts (h adds a head)
activate() { click_until "$1" "s.get('active_widget') == '$1'" "make it take the keys" "$2"; }
pick_entry() { click_until "$1" "not s['popup']" "close its list"; }  # pick_entry ENTRY of an open list
file_menu_dialog() {  # file_menu_dialog ITEM TITLE_WORDS: File > ITEM (a widget's name), each step checked
    local x y
    read -r x y <<<"$(widget_centre menu_file)"
    click "$x" "$y"
    check "File lists $1" wait_state "'$1' in s['widgets']"
    read -r x y <<<"$(widget_centre "$1")"
    click "$x" "$y"
    check "$1 opens its dialog ($2)" wait_state "s['dialog'] is not None and '$2' in s['dialog']['title']"
}
save_pytorch_program() {  # save_pytorch_program PATH FOR_WHAT: File > Save PyTorch as .py to PATH, each step checked
    file_menu_dialog menu_save_py PyTorch
    type_path "$1"
    check "the dialog saves the program $2" \
        wait_state "s['dialog'] is None and s['last_export']['path'] == '$1' and s['last_export']['error'] is None"
}
type_path() {  # type_path PATH: replaces the path in the open file dialog and presses Enter
    # The path field takes the keyboard a frame or two after the dialog opens or an action
    # fails: Ctrl+A before that would select nothing and the path would be appended.
    wait_state "s['dialog'] is not None and s['dialog']['typing']" || { fail "the dialog's path field never took the keys"; return 1; }
    hold ctrl+a
    type_text "$1"
    hold Return
}
slider_to() {  # slider_to WIDGET VALUE: ctrl+click a slider and type an exact value
    activate "$1" ctrl
    hold ctrl+a
    type_text "$2"
    hold Return
}
window_shot() {  # window_shot FILE: the window as the X server shows it
    # import without a window waits for a click: never call it without one.
    [ -n "$WID" ] && timeout "$HANG" import -window "$WID" "$1"
}
quit_app() {  # quits with ctrl+q; sets APP_EXIT
    hold ctrl+q
    local deadline=$((SECONDS + HANG))  # LeakSanitizer's check at exit takes seconds
    while ((SECONDS <= deadline)); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.1; done
    local killed=
    if kill -0 "$APP_PID" 2>/dev/null; then kill "$APP_PID"; killed=1; fi
    wait "$APP_PID"
    APP_EXIT=$?
    # Say why, so that a quit that failed once can be understood from the log alone.
    if [ -n "$killed" ]; then
        echo "the app was still running ${HANG} s after ctrl+q and was killed; it said: $(tail -5 "$WORK/app.log")"
    elif [ "$APP_EXIT" -ne 0 ]; then
        echo "the app exited with status $APP_EXIT after ctrl+q; it said: $(tail -20 "$WORK/app.log")"
    fi
}
