#pragma once
// Above the view: the lesson bar (where we are, the step's title and its text with the
// numbers on screen, Previous / Next / Leave) or, after leaving, "Back to lesson"; and
// the tabs that choose between the pipeline, the comparison and the head view.
#include "state/view_state.h"
#include "state/lesson_player.h"
#include "views/matrix_widget.h"
#include "state/live_run.h"
#include "state/widget_rects.h"

namespace app {

void draw_lesson_bar(LiveRun& live, ViewState& c, StepText& text, const DrawContext& ctx);
ViewTab draw_view_tabs(ViewState& c, WidgetRects& widgets);

}  // namespace app
