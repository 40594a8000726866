#pragma once
#include <string>

namespace attn {

// What the engine runs on, for --version and the About box: the BLAS and its kernels, the
// vector width of the project's own loops. Two lines, each ending in a newline.
std::string machine_text();

}  // namespace attn
