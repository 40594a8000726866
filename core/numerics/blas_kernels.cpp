#include "numerics/blas_kernels.h"

#include <unistd.h>

#include <cstdlib>
#include <set>
#include <sstream>

#include "numerics/gemm.h"

namespace attn {

namespace {

// Set on the second start, to the kernels OpenBLAS had chosen on the first.
constexpr const char* kLibraryChoseVariable = "ATTNSCOPE_BLAS_LIBRARY_CHOSE";

// OpenBLAS's kernels for CPUs with AVX2 or more; every other name it has is older.
bool at_least_avx2(const std::string& kernels) {
    static const std::set<std::string> names = {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"};
    return names.count(kernels) > 0;
}

// The library's pick; ATTNSCOPE_TEST_BLAS_CHOICE stands in for it where a test needs a CPU
// the library does not know.
std::string library_choice() {
    if (const char* pretend = std::getenv("ATTNSCOPE_TEST_BLAS_CHOICE"); pretend && *pretend) return pretend;
    return blas_kernel_name();
}

}  // namespace

CpuVectors cpu_vectors() {
    CpuVectors cpu;
    if (const char* listed = std::getenv("ATTNSCOPE_CPU_FEATURES")) {
        std::istringstream words(listed);
        std::set<std::string> flags;
        for (std::string w; words >> w;) flags.insert(w);
        const auto has = [&](std::initializer_list<const char*> names) {
            for (const char* n : names)
                if (!flags.count(n)) return false;
            return true;
        };
        cpu.avx2_fma = has({"avx2", "fma"});
        cpu.avx512 = cpu.avx2_fma && has({"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"});
        cpu.avx512_bf16 = cpu.avx512 && has({"avx512_bf16"});
        return cpu;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    cpu.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    cpu.avx512 = cpu.avx2_fma && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                 __builtin_cpu_supports("avx512cd");
    cpu.avx512_bf16 = cpu.avx512 && __builtin_cpu_supports("avx512bf16");
#endif
    return cpu;
}

std::string better_blas_kernels(const std::string& chosen, const CpuVectors& cpu) {
    if (chosen.empty() || at_least_avx2(chosen)) return "";
    if (cpu.avx512_bf16) return "Cooperlake";
    if (cpu.avx512) return "SkylakeX";
    if (cpu.avx2_fma) return "Haswell";
    return "";
}

void choose_blas_kernels(char** argv) {
    const char* user = std::getenv("OPENBLAS_CORETYPE");
    if (user && *user) return;  // the user's choice, or this program's on its second start
    const std::string chosen = library_choice();
    const std::string better = better_blas_kernels(chosen, cpu_vectors());
    if (better.empty()) return;
    setenv("OPENBLAS_CORETYPE", better.c_str(), 1);
    setenv(kLibraryChoseVariable, chosen.c_str(), 1);
    execv("/proc/self/exe", argv);
    unsetenv("OPENBLAS_CORETYPE");  // not run again: go on with the library's kernels
}

std::string blas_kernels_reason() {
    const std::string in_use = blas_kernel_name();
    if (in_use.empty()) return "no BLAS: Eigen's own products";
    const char* chose = std::getenv(kLibraryChoseVariable);
    const char* user = std::getenv("OPENBLAS_CORETYPE");
    const bool set = user && *user;
    if (set && chose && in_use == user)
        return "chosen by attnscope: OpenBLAS had chosen " + std::string(chose) +
               ", older than what this CPU runs (OPENBLAS_CORETYPE overrides)";
    // The library checks the CPU itself for some kernels (Cooperlake's BF16) and keeps its
    // own choice where it disagrees with what attnscope read (a test's ATTNSCOPE_CPU_FEATURES).
    if (set && chose)
        return "attnscope asked for " + std::string(user) + " (OpenBLAS had chosen " + chose +
               "), which OpenBLAS did not take on this CPU";
    if (set && in_use == user) return "OPENBLAS_CORETYPE=" + std::string(user) + ", as set";
    if (set) return "OpenBLAS's own choice: it did not take OPENBLAS_CORETYPE=" + std::string(user);
    if (!better_blas_kernels(in_use, cpu_vectors()).empty())
        return "OpenBLAS's own choice, older than what this CPU runs: attnscope could not start again with better ones";
    return "OpenBLAS's own choice for this CPU";
}

}  // namespace attn
