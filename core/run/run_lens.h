#pragma once
// The logit lens of a model run on screen (Settings::logit_lens): what the model would
// say after each block at the positions up to the one whose next tokens are shown. The
// app draws it as a grid of blocks x positions; the CLI's --logit-lens prints every
// position's (run/intervention_run.h), through the same read_residual.
#include "run/model_run.h"

namespace attn {

// The most positions the app's lens reads: each is a row of the output head for every
// block (GPT-2 small's 13 entries x 16 positions cost about two of its forwards at 16 tokens).
constexpr int64_t kLensPositions = 16;

// run.lens_positions (up to kLensPositions ending at run.next_position) and run.lens: entry
// 0 the embeddings, entry l + 1 block l's outputs; the last entry is the run's own logits
// there (run_logits_at), what its next tokens are read from.
void read_run_lens(ModelRun& run, int top = 5);
// The same an entry at a time (ModelRunSteps: the browser draws a frame between them):
// the entries there are, and the next one read (the first sets lens_positions).
size_t lens_entries(const ModelRun& run);
void read_next_lens_entry(ModelRun& run, int top = 5);

}  // namespace attn
