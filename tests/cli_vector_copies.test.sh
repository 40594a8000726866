#!/bin/bash
# The softmax's exp has an AVX2 and an AVX-512 copy (core/numerics/exp_rows.cpp) that do
# the same operations on every lane: every head's weights must come out the same bits
# from both. Skipped (77) on a CPU without AVX-512, where only one of them runs.
# Usage: tests/cli_vector_copies.test.sh BUILD_DIR
set -euo pipefail
CLI="$1/attnscope-cli"
grep -qw avx512f /proc/cpuinfo || { echo "skipped: this CPU runs no AVX-512 copy"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# 300 tokens: rows of every length up to 300, so tails after 8 and 16 lanes are all met.
text=$(python3 -c "print(' '.join('w%d' % (i % 97) for i in range(300)))")
run() { "$CLI" --variant mha --heads 4 --d-in 64 --d-out 64 --text "$text" --stages weights,context; }
ATTNSCOPE_VECTOR_WIDTH=256 run >"$WORK/avx2.json"
run >"$WORK/avx512.json"
"$CLI" --version | grep -q "AVX-512" || { echo "FAIL: --version does not say AVX-512 runs"; exit 1; }
if cmp -s "$WORK/avx2.json" "$WORK/avx512.json"; then
    echo "ok:   the AVX2 and AVX-512 copies give the same weights and context, bit for bit"
else
    echo "FAIL: the AVX2 and AVX-512 copies differ: $(cmp "$WORK/avx2.json" "$WORK/avx512.json")"
    exit 1
fi
