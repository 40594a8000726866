#!/usr/bin/env bash
# The long monkey run (issue 9): tests/monkey/monkey.py drives the app built with
# AddressSanitizer + UBSan for 30 minutes under Xvfb, then reports how its memory went.
#   scripts/monkey-long.sh [MINUTES] [SEED]      (default: 30 minutes, a seed from the clock)
# After every action the app must draw a frame (any delay short of a hang); the result
# line reports the slowest.
# Prints the seed first, so that a failure can be replayed with the same seed. The last
# line of the result is appended to build-asan/monkey-long.log; the README quotes it.
source "$(dirname "$0")/setup.sh"
minutes=${1:-30}
seed=${2:-$(($(date +%s) % 100000))}
if ! [[ $minutes =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ ]] || ((minutes < 1)); then
    echo "usage: scripts/monkey-long.sh [MINUTES] [SEED]" >&2
    exit 2
fi
install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
build_asan --target attnscope
work=$(mktemp -d)
echo "monkey-long: seed $seed, $minutes minutes, log $work/monkey.log"
status=0
env "${ASAN_ENV[@]}" xvfb-run -a -s "-screen 0 1280x800x24" python3 "$ROOT/tests/monkey/monkey.py" \
    --app "$ROOT/build-asan/attnscope" --seconds $((minutes * 60)) --seed "$seed" \
    --work "$work" --log "$work/monkey.log" | tee "$work/result.txt" || status=1
{
    printf '%s %s, %s: ' "$(date -u +%Y-%m-%dT%H:%MZ)" "$(git -C "$ROOT" rev-parse --short HEAD)" \
        "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
    grep -m1 'monkey: [0-9]* actions\|FAILED' "$work/result.txt" || echo "no result (status $status)"
} >>"$ROOT/build-asan/monkey-long.log"
tail -1 "$ROOT/build-asan/monkey-long.log"
exit $status
