#pragma once
// A head view in the style of BertViz: the tokens in two columns (queries on the left,
// keys on the right) joined by lines whose opacity is the attention weight, one colour
// per head. Hovering a token keeps only its lines.
#include "views/matrix_widget.h"
#include "run/pipeline.h"
#include "state/widget_rects.h"

namespace app {

// Lines are ImDrawList strokes, T² per head: fine up to this many tokens.
constexpr int kHeadLinesMaxTokens = 64;

// Records "head_view_lines": the band between the query and key columns, where the
// line from query q to key k runs from (x0, row q's middle) to (x1, row k's middle).
void draw_head_lines(const attn::Run& run, const DrawContext& ctx, WidgetRects& widgets);

}  // namespace app
