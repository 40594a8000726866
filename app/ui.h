#pragma once
// The whole window, drawn once a frame: controls on the left, the run on the right
// (tokens, every head, the selected head's pipeline).
#include "panels/app_panels.h"
#include "panels/controls.h"
#include "views/pipeline_view.h"
#include "views/data_sampler_view.h"
#include "views/token_chips.h"
#include "state/frame_report.h"

namespace app {

void draw_window(LiveRun& live, float& ui_scale, const DrawContext& ctx, ViewMemo& memo, FrameReport& report,
                 AppPanels& panels);

}  // namespace app
