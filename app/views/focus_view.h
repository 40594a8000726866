#pragma once
// Focus: one stage of the pipeline as large as the view allows, for a room to read it
// (presenter mode's layout, and F or View › Focus anywhere). The head strip becomes a
// row of thumbnails; ◀ ▶ (and ← → outside a lesson) walk the pipeline stage by stage.
#include <optional>
#include <string>

#include "views/pipeline_view.h"

namespace app {

// Draws stage `stage` of head `head` (a head of `run`) in the space left, its row and
// column tokens and numbers in the body font where the cells hold them. `stage` names
// the stage on screen: one the run does not have becomes the attention weights (or
// the first stage); `walk` (-1, 0, +1) moves it along the pipeline first. The ◀ ▶
// buttons move it for the next frame. Returns the head whose thumbnail was clicked.
std::optional<int> draw_focus(const attn::Run& run, int head, std::string& stage, int walk, const DrawContext& ctx,
                              ViewMemo& memo, HeatmapRegistry& shown, const StageMarks* marks);

}  // namespace app
