#pragma once
// The left panel: the sentence, the variant, the sliders and toggles, the UI scale,
// and why the current combination cannot run (in red, next to the controls).
#include "graphics/fonts.h"
#include "state/live_run.h"
#include "state/widget_rects.h"

namespace app {

// `ui_scale` is changed when the user lets go of the scale slider (the font atlas
// is rebuilt between frames, not while dragging).
void draw_controls(LiveRun& live, float& ui_scale, const Fonts& fonts, WidgetRects& rects);

}  // namespace app
