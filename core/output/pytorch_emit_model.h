#pragma once
// "Copy as PyTorch" for a GPT model (attnscope-cli --model ... --emit-pytorch, the app's
// File menu): a self-contained Python program, torch its only package, that builds the
// model with the book's chapter 4 classes (gpt-ch4 seeded as the book does; a checkpoint's
// weights loaded as chapter 5's load_weights_into_gpt does), runs attnscope's token ids
// through it and prints one head's attention weights, the 10 most probable next tokens
// and the greedy ones, then the same numbers as one JSON line (--json: only that line).
#include <string>

#include "run/intervention_run.h"
#include "run/model_run.h"
#include "settings/settings.h"

namespace attn {

// A program for `run`, which run_model(s, ..., generated_in_view) produced, showing layer
// s.layer's head s.head (0 and 0 when unset, as the CLI's JSON lists every head).
// generated_in_view (the app): the run's tokens end with the tokens it generated, and the
// program reads them all; otherwise (the CLI) it reads the text's and generates s.generate
// greedy tokens after them. Throws ModelFileError when the model's file has gone since it
// loaded (the program reads it again), InputError for a layer or head the model lacks.
std::string emit_model_pytorch(const Settings& s, const ModelRun& run, bool generated_in_view);

// The same program for a run with heads switched off or patched (--ablate, --patch): the
// forward runs with pre-hooks on the output projections, and the program prints the changed
// run's next tokens (and the head's weights) beside the baseline's next tokens. `run` is
// run_model's on the same settings, `iv` run_interventions'.
std::string emit_intervention_pytorch(const Settings& s, const ModelRun& run, const InterventionRun& iv);

// Why emit_model_pytorch would refuse `run` now, in one line ("" when it would not): the
// model's file has gone since it loaded. Cheap (one stat): the app's menu asks each frame.
std::string model_program_problem(const ModelRun& run);

}  // namespace attn
