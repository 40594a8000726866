#pragma once
// The whole window, drawn once a frame: controls on the left, the run on the right
// (tokens, every head, the selected head's pipeline).
#include "panels/classroom_mode.h"
#include "panels/controls.h"
#include "views/pipeline_view.h"
#include "views/sliding_window_view.h"
#include "views/token_chips.h"

namespace app {

struct FrameReport {  // where things were drawn this frame, for the state file
    WidgetRects widgets;
    HeatmapRegistry heatmaps;
    std::vector<ChipInfo> chips;  // the first text's, then the second text's
    WindowReport window;
    bool popup_open = false;  // a menu, combo list or dialog: the next click closes it first
};

void draw_window(LiveRun& live, float& ui_scale, const DrawContext& ctx, ViewMemo& memo, FrameReport& report,
                 ClassroomMode& classroom);

}  // namespace app
