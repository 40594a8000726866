#pragma once
// The logit lens in the model view: what the model would say after each layer, at the
// positions up to the one whose next tokens are shown (core/run/run_lens.h). A grid of
// layers x positions, each cell the most probable token coloured by its probability,
// its top 5 on hover; a checkbox above it turns it on and off (Settings::logit_lens).
#include <optional>

#include "run/model_run.h"
#include "state/widget_rects.h"
#include "views/matrix_widget.h"

namespace app {

// `asked`: the controls' Settings::logit_lens. The checkbox's new value when clicked.
std::optional<bool> draw_logit_lens(const attn::ModelRun& m, bool asked, const DrawContext& ctx, WidgetRects& widgets);

}  // namespace app
