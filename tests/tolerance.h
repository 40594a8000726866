#pragma once
// The golden tolerances (core/numerics/tolerance.h: why a stage's scale, and the two
// constants), under the tests' namespace.
#include "numerics/tolerance.h"

namespace attn::test {

using attn::kModelRelative;
using attn::kStageRelative;
using attn::stage_scale;

}  // namespace attn::test
