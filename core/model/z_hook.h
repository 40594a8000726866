#pragma once
// A hook on z, every head's context vectors side by side (T x heads*head_dim): what a
// block's output projection reads. It may change z in place before the projection reads
// it (core/interventions/hooked_run.h switches heads off or patches them this way).
#include <functional>

#include "numerics/tensor.h"

namespace attn {

using ZHook = std::function<void(int layer, Matrix& z)>;

}  // namespace attn
