#pragma once
// torch.randn's transform of uniform draws into normal ones (normal_fill_16 of torch's
// vectorised kernel), on blocks of 16 floats in place.
#include <cstdint>

namespace attn {

// `blocks` consecutive blocks of 16 uniforms in [0, 1): element j of a block pairs with
// j + 8 and they become radius * cos(theta) and radius * sin(theta), with radius =
// sqrt(-2 log(1 - u_j)) and theta = 2 pi u_(j+8) computed in float, as torch does.
void box_muller_blocks(float* u, int64_t blocks);

}  // namespace attn
