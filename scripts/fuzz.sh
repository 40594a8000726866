#!/usr/bin/env bash
# Fuzzes every parser that reads what a user hands attnscope (fuzz/fuzz_*.cpp, libFuzzer):
#   scripts/fuzz.sh [SECONDS_EACH] [TARGET...]      (default: 5 s, every target)
#   scripts/fuzz.sh --build                          build the targets only
# Builds build-fuzz with clang (configured once, then incremental), replays the committed
# reproducers of fuzz/regressions/TARGET/, then runs each target for SECONDS_EACH, one after
# the other, on a scratch copy of its corpus (build-fuzz/corpus/TARGET, never committed)
# seeded from fuzz/corpus/TARGET. Prints one line per target; on a finding prints the
# saved input and the command that reproduces it, and exits 1 after the remaining targets.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build-fuzz"
build_only=0
[[ ${1:-} == --build ]] && build_only=1 && shift
seconds=${1:-5}
shift || true
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 1)); then
    echo "usage: scripts/fuzz.sh [SECONDS_EACH] [TARGET...] | --build" >&2
    exit 2
fi

cxx=${FUZZ_CXX:-clang++}
if ! command -v "$cxx" >/dev/null; then
    echo "fuzz.sh: $cxx not found (Debian: apt-get install clang)" >&2
    exit 2
fi

log="$build/build.log"
mkdir -p "$build"
if [[ ! -f $build/CMakeCache.txt ]]; then
    if ! nice -n 10 cmake -S "$root/fuzz" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" >"$log" 2>&1; then
        cat "$log" >&2
        echo "fuzz.sh: configuring build-fuzz failed" >&2
        exit 2
    fi
fi
if ! nice -n 10 cmake --build "$build" -j "${FUZZ_JOBS:-2}" >"$log" 2>&1; then
    cat "$log" >&2
    echo "fuzz.sh: building the fuzz targets failed" >&2
    exit 2
fi
((build_only)) && exit 0

if (($# == 0)); then
    set --
    for src in "$root"/fuzz/fuzz_*.cpp; do
        set -- "$@" "$(basename "$src" .cpp)"
    done
fi

# The first line of a libFuzzer log that says what went wrong.
finding_kind() {
    local kind
    kind=$(grep -m1 -oE '==[0-9]+== ?ERROR: [A-Za-z]+: [a-z-]+|==FINDING== .*|ERROR: libFuzzer: [a-z-]+|terminate called after throwing an instance of .*|runtime error: .*' "$1" | head -1)
    echo "${kind:-see the log}"
}

failed=0
for target in "$@"; do
    exe="$build/$target"
    if [[ ! -x $exe ]]; then
        echo "$target: no such fuzz target (fuzz/$target.cpp)" >&2
        failed=1
        continue
    fi
    options=(-timeout=10 -rss_limit_mb=2048)
    [[ -f $root/fuzz/$target.dict ]] && options+=("-dict=$root/fuzz/$target.dict")
    out="$build/findings/$target"
    mkdir -p "$out" "$build/corpus/$target"
    runlog="$build/$target.log"

    # Committed reproducers of earlier findings: each must now pass.
    regressions=()
    if [[ -d $root/fuzz/regressions/$target ]]; then
        while IFS= read -r -d '' f; do regressions+=("$f"); done \
            < <(find "$root/fuzz/regressions/$target" -type f ! -name '*.md' -print0 | sort -z)
    fi
    if ((${#regressions[@]})); then
        if ! "$exe" "${options[@]}" "${regressions[@]}" >"$runlog" 2>&1; then
            bad=$(grep -o 'Running: .*' "$runlog" | tail -1 | cut -d' ' -f2-)
            echo "$target: FINDING: a committed reproducer still fails: $(finding_kind "$runlog")"
            echo "    input: ${bad:-see the log}"
            echo "    log: $runlog"
            echo "    reproduce: $exe ${bad:-${regressions[*]}}"
            failed=1
            continue
        fi
    fi

    corpora=("$build/corpus/$target")
    [[ -d $root/fuzz/corpus/$target ]] && corpora+=("$root/fuzz/corpus/$target")
    start=$SECONDS
    nice -n 10 "$exe" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$out/" "${corpora[@]}" >"$runlog" 2>&1
    status=$?
    took=$((SECONDS - start))
    runs=$(grep -o '^stat::number_of_executed_units: *[0-9]*' "$runlog" | grep -o '[0-9]*$' | tail -1)
    [[ -z $runs ]] && runs=$(grep -oE '^#[0-9]+' "$runlog" | tail -1 | tr -d '#')
    cov=$(grep -oE 'cov: [0-9]+' "$runlog" | tail -1 | grep -oE '[0-9]+')
    crash=$(grep -o 'Test unit written to .*' "$runlog" | tail -1 | sed 's/^Test unit written to //')
    if ((status == 0)) && [[ -z $crash ]]; then
        echo "$target: $took s, ${runs:-?} runs, cov ${cov:-?}, no finding"
    else
        echo "$target: FINDING after $took s, ${runs:-?} runs: $(finding_kind "$runlog")"
        echo "    input: ${crash:-none saved}"
        echo "    log: $runlog"
        [[ -n $crash ]] && echo "    reproduce: $exe ${options[*]} $crash"
        failed=1
    fi
done
exit $failed
