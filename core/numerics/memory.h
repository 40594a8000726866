#pragma once

namespace attn {

// A full trace at T = 1024 with 12 heads holds ~400 MB of stage matrices. By default
// glibc hands each 4 MB matrix back to the kernel when it is freed, so the next
// forward page-faults ~100k fresh pages (measured: 40% of its time). Programs that
// compute trace after trace (the CLI's --time, the app, the benchmarks) call this once
// at start-up so that freed matrices stay mapped and are reused.
void keep_freed_memory_mapped();

// Hands the freed memory kept by keep_freed_memory_mapped back to the kernel. The app
// calls it when it has been idle a while, so that one large run does not hold its
// memory for the rest of the session (a 30-minute monkey run grew to 1 GB without it).
void return_freed_memory();

}  // namespace attn
