#pragma once
// BertViz's model view in the head view: every layer x head as a thumbnail of its lines
// (queries on the left edge, keys on the right, opacity the weight), one colour per head.
#include <optional>
#include <utility>
#include <vector>

#include "run/pipeline.h"
#include "state/widget_rects.h"
#include "views/matrix_widget.h"

namespace app {

using ThumbnailLayers = std::vector<const attn::Trace*>;  // each layer's heads, in order

// Records each thumbnail as "head_thumb/<layer>.<head>" (a module's run: "head_thumb/<head>",
// its single layer 0). Returns the clicked (layer, head).
std::optional<std::pair<int, int>> draw_head_thumbnails(const attn::Run& run, const ThumbnailLayers& layers,
                                                        const DrawContext& ctx, WidgetRects& widgets);

}  // namespace app
