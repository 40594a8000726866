#!/bin/bash
# The golden suites on the kernels of other machines, from this one: OpenBLAS's dynamic
# build carries a kernel per CPU family and OPENBLAS_CORETYPE picks one; the project's own
# vector loops have a copy per width and ATTNSCOPE_VECTOR_WIDTH narrows the choice
# (core/numerics/vector_clones.h). Each run is checked to be on what it asked for
# (attnscope-cli --version), then runs every golden Catch2 case (chapter 3, the chapter 4
# bonus variants, the seeds' printed tensors, the GPT and Llama-family models, torch's
# random numbers, BPE) against PyTorch's committed data.
# Usage: tests/golden_machines.test.sh BUILD_DIR blas NAME | width BITS
#   blas NAME   OpenBLAS's kernels NAME (Prescott, Sandybridge, Haswell, Zen, SkylakeX,
#               Cooperlake); skipped (exit 77) where this CPU cannot run them
#   width BITS  the project's loops at 128 or 256 bits; skipped where the CPU has no wider
#               copy to narrow from (the plain golden tests run the widest)
set -euo pipefail
BUILD=$(cd "$1" && pwd)
kind=$2 name=$3
SKIP=77
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done; }
env=()
case $kind in
    blas)
        case $name in
            Prescott) needs=(pni) ;;  # SSE3
            Sandybridge) needs=(avx) ;;
            Haswell | Zen) needs=(avx2 fma) ;;
            SkylakeX) needs=(avx512f avx512bw avx512dq avx512vl avx512cd) ;;
            Cooperlake) needs=(avx512f avx512bw avx512dq avx512vl avx512cd avx512_bf16) ;;
            *) echo "no such kernel in this test: $name" >&2; exit 2 ;;
        esac
        if ! has "${needs[@]}"; then echo "skipped: this CPU lacks ${needs[*]} for OpenBLAS's $name kernels"; exit $SKIP; fi
        env=(OPENBLAS_CORETYPE="$name")
        want="(kernels: $name)" ;;
    width)
        case $name in
            128) has avx2 fma || { echo "skipped: the CPU's widest copy is already 128-bit"; exit $SKIP; } ;;
            256) has avx512f || { echo "skipped: the CPU's widest copy is already 256-bit or less"; exit $SKIP; } ;;
            *) echo "no such width: $name (128 or 256)" >&2; exit 2 ;;
        esac
        env=(ATTNSCOPE_VECTOR_WIDTH="$name")
        want="-bit; ATTNSCOPE_VECTOR_WIDTH narrowed it"
        [ "$name" = 128 ] && want="SSE2 (128$want" || want="AVX2 (256$want" ;;
    *) echo "usage: $0 BUILD_DIR blas NAME | width BITS" >&2; exit 2 ;;
esac

# The environment must reach the library: a kernel OpenBLAS does not know, or a CPU it
# refuses the kernel for, falls back silently.
version=$(env "${env[@]}" "$BUILD/attnscope-cli" --version)
if [[ $version != *"$want"* ]]; then
    echo "FAIL: ${env[*]} did not take effect; attnscope-cli --version says:" >&2
    echo "$version" >&2
    exit 1
fi
echo "$version" | grep -E '^(blas|vectors):'
exec env "${env[@]}" "$BUILD/attnscope-tests" "[golden],[seeds],[modern],[gpt],[rng],[bpe]" -w NoTests
