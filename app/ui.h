#pragma once
// The whole window, drawn once a frame: controls on the left, the run on the right
// (tokens, every head, the selected head's pipeline).
#include "controls.h"
#include "pipeline_view.h"

namespace app {

struct FrameReport {  // where things were drawn this frame, for the state file
    WidgetRects widgets;
    HeatmapRegistry heatmaps;
};

void draw_window(Session& session, float& ui_scale, const DrawContext& ctx, ViewMemo& memo, FrameReport& report);

}  // namespace app
