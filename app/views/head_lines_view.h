#pragma once
// A head view in the style of BertViz: the tokens in two columns (queries on the left,
// keys on the right) joined by lines whose opacity is the attention weight, one colour
// per head. A model's layer is chosen above it; each head's lines switch on and off
// (all, none, or one alone); hovering a token keeps only its lines. Its model view
// shows every layer x head as a thumbnail of lines; a click opens that head alone.
#include <vector>

#include "run/pipeline.h"
#include "state/frame_report.h"
#include "views/matrix_widget.h"

namespace app {

// Lines are ImDrawList strokes, T² per head: fine up to this many tokens.
constexpr int kHeadLinesMaxTokens = 64;

// Okabe–Ito's colour-blind-safe palette, one colour per head (repeating after 8).
ImU32 head_colour(int head);
ImU32 with_alpha(ImU32 colour, float alpha);

// The trace whose heads are drawn for layer `layer`: a model's block, else the run's own.
const attn::Trace& layer_trace(const attn::Run& run, int layer);

class HeadView {
public:
    // Records "head_view_lines": the band between the query and key columns, where the
    // line from query q to key k runs from (x0, row q's middle) to (x1, row k's middle);
    // "head_view_query_<q>" and "head_view_key_<k>", the tokens; the controls (layer
    // list "head_view_layer" and its "head_view_layer_<l>", "head_view_all",
    // "head_view_none", "head_view_head_<h>", "head_view_model_view"); the thumbnails
    // "head_thumb/<l>.<h>". report.head_view says what was drawn.
    void draw(const attn::Run& run, int shown_head, const DrawContext& ctx, FrameReport& report);

private:
    void draw_controls(const attn::Run& run, int layers, const DrawContext& ctx, FrameReport& report);
    void draw_lines(const attn::Run& run, const DrawContext& ctx, FrameReport& report);

    int layer_ = -1;          // the model's layer drawn; -1: the run's own (a model's shown head's)
    std::vector<bool> on_;    // each head's lines shown; empty: not chosen yet for this run's heads
    bool model_view_ = false;
};

}  // namespace app
