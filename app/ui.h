#pragma once
// The whole window, drawn once a frame: controls on the left, the run on the right
// (tokens, every head, the selected head's pipeline).
#include "classroom_mode.h"
#include "controls.h"
#include "pipeline_view.h"
#include "sliding_window_view.h"
#include "token_chips.h"

namespace app {

struct FrameReport {  // where things were drawn this frame, for the state file
    WidgetRects widgets;
    HeatmapRegistry heatmaps;
    std::vector<ChipInfo> chips;  // the first text's, then the second text's
    WindowReport window;
    bool popup_open = false;  // a menu, combo list or dialog: the next click closes it first
};

void draw_window(Session& session, float& ui_scale, const DrawContext& ctx, ViewMemo& memo, FrameReport& report,
                 ClassroomMode& classroom);

}  // namespace app
