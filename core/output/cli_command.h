#pragma once
// The command line that reproduces a set of settings, as the emitted PyTorch program's
// header quotes it (pytorch_emit.h includes this header).
#include <string>

#include "settings/settings.h"

namespace attn {

// The attnscope-cli command for these settings: --variant (with a GPT model --model, and
// only the flags a model takes), then every flag whose value differs from the default,
// quoted for a POSIX shell. Leaves out --stages, --time and the
// output-mode flags (--emit-pytorch, --export).
std::string cli_command(const Settings& s);

}  // namespace attn
