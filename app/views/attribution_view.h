#pragma once
// A logit split into its parts in the model view (Settings::attribute): what the
// embeddings, every head, each projection's bias and every MLP add to the logit of a
// next token, as bars either side of zero, largest first. A checkbox asks for the most
// probable next token's; a button follows the most probable again when it changed.
#include <optional>
#include <string>

#include "run/model_run.h"
#include "state/widget_rects.h"
#include "views/matrix_widget.h"

namespace app {

// `asked`: the controls' Settings::attribute. The new value when a control changed it
// (an empty string: unset).
std::optional<std::string> draw_attribution(const attn::ModelRun& m, const std::optional<std::string>& asked,
                                            const DrawContext& ctx, WidgetRects& widgets);

}  // namespace app
