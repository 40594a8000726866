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

// The lesson's buttons, title and (unless `text_beside`) the step's text, above the view.
void draw_lesson_bar(LiveRun& live, ViewState& c, StepText& text, const DrawContext& ctx, bool text_beside);
// Presenter focus on one stage of a wide screen: the matrix is as tall as the view, so
// the step's text goes in a column beside it, this wide (0: above the view, as usual).
// `room`: the width and height the lesson bar and view share.
float step_text_beside(const ViewState& c, ImVec2 room, float ui_scale);
// The step's text alone, wrapped at spaces (the column beside the view).
void draw_step_text(LiveRun& live, ViewState& c, StepText& text);
ViewTab draw_view_tabs(ViewState& c, WidgetRects& widgets);

}  // namespace app
