#pragma once
// Above the view: the lesson bar (where we are, the step's title and its text with the
// numbers on screen, Previous / Next / Leave) or, after leaving, "Back to lesson"; and
// the tabs that choose between the pipeline, the comparison and the head view.
#include "classroom.h"
#include "lesson_player.h"
#include "matrix_widget.h"
#include "session.h"
#include "widget_rects.h"

namespace app {

void draw_lesson_bar(Session& session, Classroom& c, StepText& text, const DrawContext& ctx);
ViewTab draw_view_tabs(Classroom& c, WidgetRects& widgets);

}  // namespace app
