#include "model/row_products.h"

#include <cstring>
#include <vector>

#include "numerics/vector_clones.h"

namespace attn {

namespace {

constexpr int kLanes = 16;

// A weight's element k as float32.
inline float bf16_at(const unsigned char* w, int64_t k) {
    uint16_t h;
    std::memcpy(&h, w + 2 * k, 2);
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}
inline float f32_at(const unsigned char* w, int64_t k) {
    float f;
    std::memcpy(&f, w + 4 * k, 4);
    return f;
}

// One row's dot product with x, widened as read; inlined into each copy below, so that the
// compiler uses AVX2 or AVX-512 where the CPU has them, SSE2 otherwise (called from the
// copies instead, it ran SSE2 in all of them). Sixteen running sums in a fixed order: every
// copy gives the same bits.
template <float (*At)(const unsigned char*, int64_t)>
ATTN_VECTOR_BODY float dot(const float* x, const unsigned char* w, int64_t n) {
    float sums[kLanes] = {};
    int64_t k = 0;
    for (; k + kLanes <= n; k += kLanes)
        for (int l = 0; l < kLanes; ++l) sums[l] += x[k + l] * At(w, k + l);
    float tail = 0.0f;
    for (; k < n; ++k) tail += x[k] * At(w, k);
    float total = 0.0f;
    for (float s : sums) total += s;
    return total + tail;
}

ATTN_VECTOR_BODY void rows_bf16_body(const float* x, const unsigned char* w, int64_t rows, int64_t cols, float* y) {
    for (int64_t j = 0; j < rows; ++j) y[j] = dot<bf16_at>(x, w + 2 * j * cols, cols);
}
ATTN_VECTOR_COPIES3(void, rows_bf16, (const float* x, const unsigned char* w, int64_t rows, int64_t cols, float* y),
                    (x, w, rows, cols, y))
ATTN_VECTOR_BODY void rows_f32_body(const float* x, const unsigned char* w, int64_t rows, int64_t cols, float* y) {
    for (int64_t j = 0; j < rows; ++j) y[j] = dot<f32_at>(x, w + 4 * j * cols, cols);
}
ATTN_VECTOR_COPIES3(void, rows_f32, (const float* x, const unsigned char* w, int64_t rows, int64_t cols, float* y),
                    (x, w, rows, cols, y))

}  // namespace

void times_transposed_row(const float* x, const unsigned char* data, TensorDtype dtype, int64_t rows, int64_t cols,
                          float* y) {
    switch (dtype) {
        case TensorDtype::BF16: return rows_bf16(x, data, rows, cols, y);
        case TensorDtype::F32: return rows_f32(x, data, rows, cols, y);
        case TensorDtype::F16: {  // rare in these models: a row at a time through the converter
            TensorEntry row;
            row.dtype = TensorDtype::F16;
            row.shape = {cols};
            std::vector<float> w(static_cast<size_t>(cols));
            for (int64_t j = 0; j < rows; ++j) {
                tensor_to_floats(data + 2 * j * cols, row, w.data());
                float sum = 0.0f;
                for (int64_t k = 0; k < cols; ++k) sum += x[k] * w[static_cast<size_t>(k)];
                y[j] = sum;
            }
            return;
        }
        default:
            throw ModelFileError("a weight must be F32, F16 or BF16 to be multiplied");
    }
}

}  // namespace attn
