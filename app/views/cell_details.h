#pragma once
// What the hover tooltip says about one cell: where it is, its exact value, and how
// it was computed from the stages before it (the dot product of a score, the
// softmax fraction of a weight, ...), with the trace's own numbers.
#include <string>
#include <vector>

#include "run/pipeline.h"

namespace app {

// `head` is the head the stage belongs to, or null for a model stage.
std::vector<std::string> explain_cell(const attn::Run& run, const attn::HeadTrace* head, const attn::Stage& stage,
                                      int row, int col);

}  // namespace app
