#pragma once
// One row through a weight as the file stores it: y = x @ W^T with W's rows widened to
// float32 as they are read. A token through a Llama model's KV cache multiplies one row
// by every weight once: converting each weight to a float matrix first would write and
// read it again (for a 1B model, about 1 GB a token). Rows are summed in 16 running sums,
// vectorised for the widest instructions the CPU has (checked at run time).
#include <cstdint>

#include "model/safetensors.h"

namespace attn {

// y[j] = sum_k x[k] * W[j, k] for the `rows` rows of `cols` elements at `data` (F32, F16
// or BF16, little-endian, any alignment). Throws ModelFileError for another dtype.
void times_transposed_row(const float* x, const unsigned char* data, TensorDtype dtype, int64_t rows, int64_t cols,
                          float* y);

}  // namespace attn
