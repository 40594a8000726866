#pragma once
// The Check tab: a check of the user's own attention module (File > Check my attention
// code…, docs/check.md). The report as attnscope-cli --check prints it, the compared
// stages (and a stage's heads) to pick from, and the stage on screen three times side by
// side: the user's numbers, attnscope's, and their difference, every cell beyond the
// tolerance outlined.
#include "state/frame_report.h"
#include "state/view_state.h"
#include "views/matrix_widget.h"

namespace app {

// Records the widgets "check_stage_<stage>" and "check_head_<h>", the heatmaps
// "check/yours", "check/attnscope" and "check/difference"; report.check says what it shows.
void draw_check_view(ViewState& c, const DrawContext& ctx, FrameReport& report);

}  // namespace app
