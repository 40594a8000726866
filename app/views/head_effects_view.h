#pragma once
// Which heads matter, in the model view (Settings::head_effects, core/run/run_head_effects.h):
// a checkbox asks for each head's effect on the probability of the top next token, each
// head alone switched off, or patched from the other text when the patch box holds one;
// the answer is a layers x heads heatmap on a diverging scale, the change on hover. The
// run computes it a layer a step, under the worker's progress bar.
#include <optional>
#include <string>

#include "run/model_run.h"
#include "state/widget_rects.h"
#include "views/matrix_widget.h"

namespace app {

// `asked`: the controls' Settings::head_effects; `patching`: the patch box holds a text.
// The setting's new value when the checkbox is clicked ("": unset).
std::optional<std::string> draw_head_effects(const attn::ModelRun& m, const std::optional<std::string>& asked,
                                             bool patching, const DrawContext& ctx, HeatmapRegistry& shown,
                                             WidgetRects& widgets);

}  // namespace app
