#pragma once
// The project's own loops that GCC vectorises (the Box-Muller transform, GELU, exp and the
// softmax's row passes, the Mersenne twister, a model's row products) are compiled once for
// each vector width and one copy runs: the portable x86-64 build uses AVX2 or AVX-512 where
// the CPU has them, SSE2 otherwise. ATTNSCOPE_VECTOR_WIDTH=128 or 256 narrows the choice, so
// that the tests run every copy on one CPU (the golden suites run under each width).
//
// A function written with ATTN_VECTOR_BODY holds the loops; ATTN_VECTOR_COPIES2 (SSE2 and
// AVX2) or ATTN_VECTOR_COPIES3 (and AVX-512) then defines the function callers use, which
// calls the copy for vector_width(). A copy is the body inlined into a function compiled for
// its target: GCC inlines a body into a caller with a wider target and vectorises it there.
// Not GCC's target_clones: its copy is picked by an ifunc resolver while the program loads,
// before anything could ask for another, and ThreadSanitizer crashed in those resolvers.
#include <string>

namespace attn {

enum class VectorWidth { sse2 = 128, avx2 = 256, avx512 = 512 };

// The widest the CPU runs (AVX2 counts with FMA), narrowed by ATTNSCOPE_VECTOR_WIDTH; read once.
VectorWidth vector_width();
std::string vector_width_description();  // e.g. "AVX2 (256-bit; the CPU has AVX-512)"

}  // namespace attn

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ATTN_VECTOR_DISPATCH 1
#define ATTN_VECTOR_BODY __attribute__((always_inline)) inline
#define ATTN_VECTOR_COPY(target_name, ret, name, suffix, params, args) \
    __attribute__((target(target_name))) static ret name##suffix params { return name##_body args; }
#define ATTN_VECTOR_COPIES2(ret, name, params, args)                        \
    ATTN_VECTOR_COPY("avx2", ret, name, _avx2, params, args)                \
    static ret name##_sse2 params { return name##_body args; }              \
    ret name params {                                                       \
        if (::attn::vector_width() >= ::attn::VectorWidth::avx2) return name##_avx2 args; \
        return name##_sse2 args;                                            \
    }
#define ATTN_VECTOR_COPIES3(ret, name, params, args)                        \
    ATTN_VECTOR_COPY("avx512f", ret, name, _avx512, params, args)           \
    ATTN_VECTOR_COPY("avx2", ret, name, _avx2, params, args)                \
    static ret name##_sse2 params { return name##_body args; }              \
    ret name params {                                                       \
        if (::attn::vector_width() == ::attn::VectorWidth::avx512) return name##_avx512 args; \
        if (::attn::vector_width() >= ::attn::VectorWidth::avx2) return name##_avx2 args; \
        return name##_sse2 args;                                            \
    }
#else
#define ATTN_VECTOR_BODY inline
#define ATTN_VECTOR_COPIES2(ret, name, params, args) \
    ret name params { return name##_body args; }
#define ATTN_VECTOR_COPIES3 ATTN_VECTOR_COPIES2
#endif
