#pragma once
// What the File menu's actions, the shortcuts and the panels read and change: the run on
// screen, the classroom's view, the UI scale and the heatmaps' painter.
#include "graphics/heatmap.h"
#include "state/live_run.h"
#include "state/view_state.h"

namespace app {

struct AppContext {
    LiveRun& live;
    ViewState& classroom;
    float& ui_scale;
    const HeatmapPainter& painter;
};

}  // namespace app
