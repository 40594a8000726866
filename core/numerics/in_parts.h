#pragma once
// One pass over n elements, cut into parts that the engine's OpenMP threads share.
#include <algorithm>
#include <cstdint>

namespace attn {

// work(from, to) for [0, n) in parts of `part` elements, over the threads when there is more
// than one part. Each element is computed as in one pass over the whole, so `part` should
// be a multiple of every SIMD width and `work` must not throw (an exception may not leave
// an OpenMP loop).
template <class Work>
void in_parts(int64_t n, int64_t part, const Work& work) {
    const int64_t parts = (n + part - 1) / part;
#pragma omp parallel for schedule(static) if (parts > 1)
    for (int64_t p = 0; p < parts; ++p) work(p * part, std::min(n, (p + 1) * part));
}

}  // namespace attn
