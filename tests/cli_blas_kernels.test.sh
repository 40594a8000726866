#!/bin/bash
# OpenBLAS's kernels on a CPU the library does not know (numerics/blas_kernels.h), each case
# forced: ATTNSCOPE_TEST_BLAS_CHOICE stands in for the library's own pick and
# ATTNSCOPE_CPU_FEATURES for the CPU's flags; `attnscope-cli --version` says which kernels
# run and why. Only --version runs, so no kernel this CPU lacks is ever executed.
# Usage: tests/cli_blas_kernels.test.sh BUILD_DIR
set -uo pipefail
CLI="$1/attnscope-cli"
failed=0
AVX2="pni avx avx2 fma"
AVX512="$AVX2 avx512f avx512bw avx512dq avx512vl avx512cd"
# expect NAME WANT_IN_BLAS_LINE ENV...: the blas line of --version must contain WANT.
expect() {
    local name="$1" want="$2"; shift 2
    local line
    line=$(env -u OPENBLAS_CORETYPE -u ATTNSCOPE_BLAS_LIBRARY_CHOSE "$@" "$CLI" --version | grep '^blas: ')
    if [[ $line == *"$want"* ]]; then echo "ok:   $name"; else echo "FAIL: $name: want '$want' in: $line"; failed=1; fi
}
expect "Prescott on an AVX2 CPU becomes Haswell" "(kernels: Haswell); chosen by attnscope: OpenBLAS had chosen Prescott" \
    ATTNSCOPE_TEST_BLAS_CHOICE=Prescott ATTNSCOPE_CPU_FEATURES="$AVX2"
# expect_asked NAME KERNEL CHOSE CPU_FLAG ENV...: attnscope asks for KERNEL where the library
# chose CHOSE. The library checks the real CPU for some kernels (Cooperlake's BF16) and keeps
# its own choice where this CPU lacks them; the line must say which happened, and on a CPU
# with CPU_FLAG the library must have taken it.
expect_asked() {
    local name="$1" kernel="$2" chose="$3" flag="$4"; shift 4
    local line in_use
    line=$(env -u OPENBLAS_CORETYPE -u ATTNSCOPE_BLAS_LIBRARY_CHOSE "$@" "$CLI" --version | grep '^blas: ')
    in_use=$(sed -n 's/.*(kernels: \([A-Za-z0-9]*\)).*/\1/p' <<<"$line")
    if [[ $in_use == "$kernel" && $line == *"(kernels: $kernel); chosen by attnscope: OpenBLAS had chosen $chose"* ]]; then
        echo "ok:   $name"
    elif [[ $in_use != "$kernel" && $line == *"attnscope asked for $kernel (OpenBLAS had chosen $chose), which OpenBLAS did not take"* ]] &&
        ! grep -qw "$flag" /proc/cpuinfo; then
        echo "ok:   $name (this CPU has no $flag: OpenBLAS kept $in_use, and the line says so)"
    else
        echo "FAIL: $name: $line"; failed=1
    fi
}
expect_asked "Prescott on an AVX-512 CPU becomes SkylakeX" SkylakeX Prescott avx512f \
    ATTNSCOPE_TEST_BLAS_CHOICE=Prescott ATTNSCOPE_CPU_FEATURES="$AVX512"
expect_asked "Core2 on an AVX-512 CPU with BF16 becomes Cooperlake" Cooperlake Core2 avx512_bf16 \
    ATTNSCOPE_TEST_BLAS_CHOICE=Core2 ATTNSCOPE_CPU_FEATURES="$AVX512 avx512_bf16"
expect "Prescott stays on a CPU without AVX2" "; OpenBLAS's own choice for this CPU" \
    ATTNSCOPE_TEST_BLAS_CHOICE=Prescott ATTNSCOPE_CPU_FEATURES="pni avx"
expect "an AVX2 kernel the library chose stays" "; OpenBLAS's own choice for this CPU" \
    ATTNSCOPE_TEST_BLAS_CHOICE=Haswell ATTNSCOPE_CPU_FEATURES="$AVX512"
expect "the user's OPENBLAS_CORETYPE wins" "(kernels: Prescott); OPENBLAS_CORETYPE=Prescott, as set" \
    ATTNSCOPE_TEST_BLAS_CHOICE=Prescott ATTNSCOPE_CPU_FEATURES="$AVX512" OPENBLAS_CORETYPE=Prescott
expect "a kernel name OpenBLAS does not have is said" "OpenBLAS's own choice: it did not take OPENBLAS_CORETYPE=NoSuchCPU" \
    OPENBLAS_CORETYPE=NoSuchCPU
# A run on the kernels chosen for this CPU's own flags (which it can execute) starts again
# once and computes: the JSON parses, and the chosen kernels are the ones --version names.
flags=$(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2)
if ! env -u OPENBLAS_CORETYPE ATTNSCOPE_TEST_BLAS_CHOICE=Prescott ATTNSCOPE_CPU_FEATURES="$flags" \
    "$CLI" --variant mha --heads 2 --text "Your journey starts with one step" | python3 -c "import json, sys; json.load(sys.stdin)"; then
    echo "FAIL: a run on the chosen kernels"; failed=1
else
    echo "ok:   a run on the kernels chosen for this CPU"
fi
exit $failed
