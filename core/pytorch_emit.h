#pragma once
// "Show me the PyTorch": writes a self-contained Python program that reproduces a run
// with the book's own classes, readable as a lesson handout, and prints the same JSON
// as attnscope-cli. Used by `attnscope-cli --emit-pytorch` (and meant for the app's
// "Copy as PyTorch").
#include <string>

#include "pipeline.h"
#include "settings.h"

namespace attn {

// The attnscope-cli command for these settings: --variant, then every flag whose value
// differs from the default, quoted for a POSIX shell. Leaves out --stages, --time and the
// output-mode flags (--emit-pytorch, --export).
std::string cli_command(const Settings& s);

// A Python program for `run`, which compute(s) produced. Run with PyTorch it prints the
// book's key tensors, then on its last line the JSON attnscope-cli prints for s (every
// stage, whatever s.stages says); with the argument --json it prints only that line.
// Only the classes the variant needs are written out.
std::string emit_pytorch(const Settings& s, const Run& run);

}  // namespace attn
