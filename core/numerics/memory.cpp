#include "numerics/memory.h"

// <cstdlib> brings glibc's <features.h>, which defines __GLIBC__: without it the checks
// below are false on glibc too, and the engine would hand its freed memory back.
#include <cstdlib>
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && !defined(__GLIBC__)
#error "numerics/memory.cpp: glibc not detected on Linux: freed memory would go back to the kernel"
#endif

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace attn {

#ifdef __GLIBC__
void keep_freed_memory_mapped() {
    // Blocks up to 1 GB from the heap, where freed ones are reused: GPT-2's 154 MB
    // embedding table must not come back as fresh pages each run. The manual gives 32 MB as
    // the largest threshold; Debian's glibc takes 1 GB, and one that refuses keeps 32 MB.
    if (mallopt(M_MMAP_THRESHOLD, 1 << 30) == 0) mallopt(M_MMAP_THRESHOLD, 32 << 20);
    // Never trim the heap's free top on free (-1: mallopt(3)): with any threshold a large
    // run (GPT-2 small at T = 1024 holds 1.1 GB) passes it as it is freed, glibc gives the
    // top back and the next forward faults it all in again. The app hands memory back
    // itself once idle (return_freed_memory). docs/speed.md has the figures.
    mallopt(M_TRIM_THRESHOLD, -1);
    mallopt(M_ARENA_MAX, 1);  // OpenMP threads allocate too: one heap, so all of it is reused
}
#else
// WebAssembly (the web build): its memory only grows, and emscripten's malloc reuses what
// was freed; there is nothing to keep and nothing to hand back.
void keep_freed_memory_mapped() {}
#endif

// Under AddressSanitizer or ThreadSanitizer, malloc is the sanitizer's, but malloc_trim
// is still glibc's: its first call sets up glibc's unused heap from the calling thread,
// attached to that thread without being counted, and a thread's exit then failed glibc's
// check ("malloc assertion failure in __malloc_arena_thread_freeres"), aborting the app
// as it quit (1 lesson tour in 38 under ASan). Those builds have nothing of glibc's to trim.
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
void return_freed_memory() { malloc_trim(0); }
#else
void return_freed_memory() {}
#endif

}  // namespace attn
