#pragma once
// The view of a run: every head's weights side by side (click one to select it) and
// the selected head's pipeline, stage by stage in the order the forward pass
// computes them. It draws whatever stages the trace holds, for any variant.
#include <map>
#include <string>

#include "matrix_widget.h"
#include "pipeline.h"

namespace app {

struct HeatmapInfo {
    MatrixPlacement placement;
    int rows = 0, cols = 0;
};
// By stage name for the pipeline ("weights", "masked_scores", ...) and "heads/<k>"
// for the per-head view: what a test needs to find a cell on screen.
using HeatmapRegistry = std::map<std::string, HeatmapInfo>;

void draw_head_strip(const attn::Run& run, int& selected_head, const DrawContext& ctx, HeatmapRegistry& shown);
void draw_pipeline(const attn::Run& run, int head, const DrawContext& ctx, HeatmapRegistry& shown);

}  // namespace app
