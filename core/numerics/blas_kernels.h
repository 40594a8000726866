#pragma once
// OpenBLAS picks its kernels when it loads, from the CPUs it knew when it was released: on
// a newer one it falls back to a generic kernel (Debian 12's 0.3.21 runs an Intel Xeon of
// family 6, model 207, with AVX-512, on its SSE3 "Prescott" kernels: about 4x slower than
// the CPU allows). choose_blas_kernels(), first thing in main(), corrects that: where the
// user has not set OPENBLAS_CORETYPE and the library chose a kernel older than AVX2 on a CPU
// that runs AVX2 or AVX-512, it sets OPENBLAS_CORETYPE to the newest kernel the CPU runs and
// executes the program again (the library reads its environment only as it loads). The
// user's own OPENBLAS_CORETYPE always wins.
#include <string>

namespace attn {

struct CpuVectors {
    bool avx2_fma = false;
    bool avx512 = false;       // F, BW, DQ, VL and CD: OpenBLAS's SkylakeX kernels
    bool avx512_bf16 = false;  // and BF16: its Cooperlake kernels
};

// What this CPU runs (CPUID). ATTNSCOPE_CPU_FEATURES, a list of /proc/cpuinfo flag names
// ("avx2 fma avx512f ..."), stands in for it: the tests force each case with it.
CpuVectors cpu_vectors();

// The newest of OpenBLAS's kernels `cpu` runs where `chosen` (the library's pick) is older
// than AVX2 and the CPU runs AVX2 or more; empty where the library's pick should stay.
std::string better_blas_kernels(const std::string& chosen, const CpuVectors& cpu);

// See above; returns where nothing needs to change (or the program cannot be run again).
void choose_blas_kernels(char** argv);

// Why the kernels in use were chosen, for --version and the About box.
std::string blas_kernels_reason();

}  // namespace attn
