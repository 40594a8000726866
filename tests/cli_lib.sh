# Shared start of the attnscope-cli shell tests: `source tests/cli_lib.sh BUILD_DIR [MODULE]`
# sets $cli, $python (Debian's, where python3-torch and python3-numpy live) and a
# scratch directory $tmp removed on exit, and fail / expect_error with their counts
# $passed and $failed; with MODULE, fails unless $python imports it.
build=${1:?usage: $0 BUILD_DIR}
cli="$build/attnscope-cli"
python=/usr/bin/python3
if [[ ! -x $cli ]]; then
    echo "FAIL: no executable $cli" >&2
    exit 1
fi
# Found, not imported: importing torch takes two seconds, and the tests that need it import it.
if [[ -n ${2:-} ]] && ! "$python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$2') is None)"; then
    echo "FAIL: $python cannot import $2: install Debian's python3-$2 (scripts/test.sh does)" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Counting, and the bad-input contract every CLI test checks the same way.
passed=0
failed=0

fail() {
    echo "FAIL: $1: $2"
    echo "      stderr: $(head -c 400 "$tmp/err")"
    failed=$((failed + 1))
}

# CLI_WRAP: a command that expect_error runs the CLI under (budget_refusal's timeout and time)
CLI_WRAP=()
# expect_error NAME PATTERN ARGS... : exit 2, empty stdout, one stderr line matching PATTERN (grep -Ei)
expect_error() {
    local name=$1 pattern=$2
    shift 2
    "${CLI_WRAP[@]}" "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    local lines
    lines=$(wc -l <"$tmp/err")
    if [[ $rc -ne 2 ]]; then fail "$name" "exit code $rc, expected 2"; return; fi
    if [[ -s $tmp/out ]]; then fail "$name" "stdout is not empty ($(wc -c <"$tmp/out") bytes)"; return; fi
    if [[ $lines -ne 1 ]]; then fail "$name" "$lines lines on stderr, expected exactly 1"; return; fi
    if ! grep -Eqi -- "$pattern" "$tmp/err"; then fail "$name" "message does not match /$pattern/"; return; fi
    echo "ok:   $name -> $(cat "$tmp/err")"
    passed=$((passed + 1))
}

# npm_oracle PACKAGE_DIR CACHE_DIR MODULE: installs PACKAGE_DIR's package-lock.json into
# CACHE_DIR (BUILD_DIR/npm-...) unless it is there already, for a test's independent
# implementation. Exits 77 (ctest: skipped) only when npm's registry cannot be reached.
npm_oracle() {
    local from=$1 into=$2 module=$3 tool
    for tool in node npm; do  # scripts/test.sh installs them; missing, the oracle would be skipped unseen
        command -v "$tool" >/dev/null || { echo "FAIL: no $tool (apt-get install nodejs npm)"; exit 1; }
    done
    cmp -s "$from/package-lock.json" "$into/package-lock.json" && [[ -d $into/node_modules/$module ]] && return 0
    mkdir -p "$into"
    cp "$from/package.json" "$from/package-lock.json" "$into/"
    if ! (cd "$into" && npm ci --no-audit --no-fund --loglevel=error >"$tmp/npm" 2>&1); then
        if ! npm ping >/dev/null 2>&1; then
            echo "SKIP: npm's registry cannot be reached to fetch $module: $(tail -1 "$tmp/npm")"
            exit 77
        fi
        echo "FAIL: npm ci in $into: $(tail -3 "$tmp/npm")"
        exit 1
    fi
}
