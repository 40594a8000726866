#pragma once

// ATTN_VECTOR_CLONES(...) before a function of plain loops makes GCC compile a copy for each
// named target and pick one when the program starts (target_clones): the portable x86-64
// build runs AVX2 or AVX-512 code where the CPU has it. The choice is made by an ifunc
// resolver that runs while the program is being loaded, before a sanitizer's runtime is;
// ThreadSanitizer's instrumentation of the resolver crashed the program at start (twice:
// the Mersenne twister, then the model's row products), so sanitizer builds get one copy.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__) && \
    !defined(__SANITIZE_ADDRESS__)
#define ATTN_VECTOR_CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#else
#define ATTN_VECTOR_CLONES(...)
#endif
