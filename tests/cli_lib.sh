# Shared start of the attnscope-cli shell tests: `source tests/cli_lib.sh BUILD_DIR [MODULE]`
# sets $cli, $python (Debian's, where python3-torch and python3-numpy live) and a
# scratch directory $tmp removed on exit; with MODULE, fails unless $python imports it.
build=${1:?usage: $0 BUILD_DIR}
cli="$build/attnscope-cli"
python=/usr/bin/python3
if [[ ! -x $cli ]]; then
    echo "FAIL: no executable $cli" >&2
    exit 1
fi
if [[ -n ${2:-} ]] && ! "$python" -c "import $2" 2>/dev/null; then
    echo "FAIL: $python cannot import $2: install Debian's python3-$2 (scripts/test.sh does)" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
