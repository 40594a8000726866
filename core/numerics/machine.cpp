#include "numerics/machine.h"

#include "numerics/blas_kernels.h"
#include "numerics/gemm.h"
#include "numerics/vector_clones.h"

namespace attn {

std::string machine_text() {
    return "blas: " + blas_description() + "; " + blas_kernels_reason() + "\nvectors: " + vector_width_description() +
           "\n";
}

}  // namespace attn
