#include "numerics/memory.h"

#include <malloc.h>

namespace attn {

void keep_freed_memory_mapped() {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);        // glibc's maximum: up to 32 MB from the heap
    mallopt(M_TRIM_THRESHOLD, 1 << 30);         // never trim the heap's free top below 1 GB
    mallopt(M_ARENA_MAX, 1);  // OpenMP threads allocate too: one heap, so all of it is reused
}

void return_freed_memory() { malloc_trim(0); }

}  // namespace attn
