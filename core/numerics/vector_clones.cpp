#include "numerics/vector_clones.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace attn {

namespace {

VectorWidth cpu_vector_width() {
#ifdef ATTN_VECTOR_DISPATCH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return VectorWidth::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return VectorWidth::avx2;
#endif
    return VectorWidth::sse2;
}

const char* name_of(VectorWidth w) {
    switch (w) {
        case VectorWidth::avx512: return "AVX-512";
        case VectorWidth::avx2: return "AVX2";
        case VectorWidth::sse2: break;
    }
#ifdef __wasm__
    return "WebAssembly SIMD128";
#else
    return "SSE2";
#endif
}

}  // namespace

VectorWidth vector_width() {
    static const VectorWidth width = [] {
        const VectorWidth cpu = cpu_vector_width();
        const char* asked = std::getenv("ATTNSCOPE_VECTOR_WIDTH");
        if (asked == nullptr || *asked == '\0') return cpu;
        const int bits = std::strcmp(asked, "128") == 0 ? 128 : std::strcmp(asked, "256") == 0 ? 256
                         : std::strcmp(asked, "512") == 0 ? 512 : 0;
        if (bits == 0) {
            std::fprintf(stderr, "attnscope: ATTNSCOPE_VECTOR_WIDTH=%s ignored: it takes 128, 256 or 512\n", asked);
            return cpu;
        }
        return bits < static_cast<int>(cpu) ? static_cast<VectorWidth>(bits) : cpu;  // never wider than the CPU
    }();
    return width;
}

std::string vector_width_description() {
    const VectorWidth w = vector_width(), cpu = cpu_vector_width();
    std::string text = std::string(name_of(w)) + " (" + std::to_string(static_cast<int>(w)) + "-bit";
    if (w != cpu) text += "; ATTNSCOPE_VECTOR_WIDTH narrowed it, the CPU has " + std::string(name_of(cpu));
    return text + ")";
}

}  // namespace attn
