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
PASSED=0
FAILED=0

pass() { PASSED=$((PASSED + 1)); echo "ok   $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
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
