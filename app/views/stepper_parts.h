#pragma once
// What the KV cache and tiled softmax tabs share: a titled heatmap laid out side by side
// with the next, and a step slider with buttons to walk it.
#include <string>
#include <vector>

#include "attention/trace.h"
#include "views/matrix_widget.h"
#include "views/pipeline_view.h"

namespace app {

struct TitledMatrix {
    std::string title;  // above the heatmap
    std::string key;    // in the state file's heatmaps
    const attn::Matrix* values = nullptr;
    ColorScale scale;
    const std::vector<std::string>* row_labels = nullptr;
    const std::vector<std::string>* col_labels = nullptr;
    const attn::Matrix* masked_by = nullptr;  // cells drawn as masked where this is 1
};

// The matrices in one row, wrapping when the pane is narrow; each at most `side` pixels.
void draw_titled_matrices(const std::vector<TitledMatrix>& matrices, float side, const DrawContext& ctx,
                          HeatmapRegistry& shown);

// A signed matrix's scale: diverging around 0 over its largest magnitude.
ColorScale signed_scale(const attn::Matrix& m);

// "◀", a slider over [lo, hi] and "▶" on one line; true when the value changed.
bool step_slider(const char* id, int& value, int lo, int hi, const char* format, const DrawContext& ctx,
                 WidgetRects& rects);

}  // namespace app
