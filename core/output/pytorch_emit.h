#pragma once
// "Show me the PyTorch": writes a self-contained Python program that reproduces a run
// with the book's own classes, readable as a lesson handout, and prints the same JSON
// as attnscope-cli. Used by `attnscope-cli --emit-pytorch` and the app's "Copy as PyTorch".
#include <string>

#include "output/cli_command.h"
#include "run/pipeline.h"
#include "settings/settings.h"

namespace attn {

// A Python program for `run`, which compute(s) produced. Run with PyTorch it prints the
// book's key tensors, then on its last line the JSON attnscope-cli prints for s (every
// stage, whatever s.stages says); with the argument --json it prints only that line.
// Only the classes the variant needs are written out. A model's layer (run.model, the
// app's model view) gets the model's program instead (pytorch_emit_model.h).
std::string emit_pytorch(const Settings& s, const Run& run);

}  // namespace attn
