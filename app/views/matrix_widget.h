#pragma once
// One matrix on screen: the heatmap texture, row and column labels, the values as
// text when the cells are big enough to read them, a legend with the range, and
// which cell the mouse is on.
#include <optional>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "graphics/fonts.h"
#include "graphics/heatmap.h"
#include "imgui.h"
#include "attention/trace.h"
#include "state/frame_report.h"
#include "state/stage_marks.h"

namespace app {

struct DrawContext {
    const HeatmapPainter& painter;
    HeatmapCache& cache;
    const Fonts& fonts;
    float ui_scale;
    uint64_t run_version;  // heatmaps re-upload their values when it changes
};

struct MatrixRequest {
    std::string key;                      // identifies the heatmap, e.g. "head 0/weights"
    const attn::Matrix* values = nullptr;
    const attn::Matrix* masked_by = nullptr;  // cells drawn as masked where this is 1
    ColorScale scale;
    const std::vector<std::string>* row_labels = nullptr;  // null: no labels
    const std::vector<std::string>* col_labels = nullptr;
    ImVec2 max_size;                      // of the heatmap itself, in pixels
    float max_cell = 64.0f;               // largest cell side, in pixels
    bool show_values = true;              // numbers in cells that are big enough
    bool highlight = false;               // a frame around it (the selected head)
    const CellMarks* marks = nullptr;     // cells and rows to outline
    const CellMarks* label_marks = nullptr;  // another heatmap's marks whose rows these labels name
    std::string export_name;              // offered in the right-click menu when set ("head1_weights")
    std::function<void()> menu_items;     // the view's own items, at the top of that menu (called inside it)
    ImFont* text_font = nullptr;          // labels and values; null: the small font
    bool widen_for_values = false;        // cells may grow wider than tall so their numbers fit
    bool whole_pixel_cells = true;        // false: cells of any size fill max_size (a zoomed block)
};

// What the right-click menu of a heatmap asked to save: a copy of the matrix, so the
// request outlives the run it came from.
struct MatrixExportRequest {
    std::string name;                     // suggested file name without extension
    std::string format;                   // png | csv | json | npy
    attn::Matrix values;
    std::optional<attn::Matrix> masked_by;
    ColorScale scale;
};
// The request made this frame, if any (taken once).
std::optional<MatrixExportRequest> take_matrix_export();

struct MatrixPlacement {
    ImVec2 min, max;  // the heatmap's screen rectangle
    ImVec2 cell;      // cell size in pixels
    bool visible = false;  // at least partly inside the scrolled view
    bool hovered = false;
    int row = -1, col = -1;  // the hovered cell
    bool clicked = false;
    bool values_rounded = false;  // numbers were drawn (rounded to 2 decimals)
    float value_px = 0.0f;        // the width a number needs in its font (0: none asked for)
    std::vector<Rect> marked;     // the screen rectangles of the lesson's cells and rows outlined
    float font_px = 0.0f;         // of the labels and values
    AxisLabelsInfo row_labels, col_labels;  // what was drawn of them, and where
    std::vector<FigureInfo> figures;        // its legend's ticks and notes, added by the view
};

// What the state file reports of a heatmap drawn at `p`.
HeatmapInfo heatmap_info(const MatrixPlacement& p, const attn::Matrix& m);

// Size the heatmap of a rows x cols matrix takes within max_size; cells are square
// unless that makes them slivers, or `value_w` (a number's width) fits only in a wider one.
ImVec2 heatmap_size(int rows, int cols, ImVec2 max_size, float max_cell, float value_w = 0.0f,
                    bool whole_pixel_cells = true);
// Size of the heatmap draw_matrix draws for `req` (labels not included).
ImVec2 heatmap_size_of(const MatrixRequest& req, const DrawContext& ctx);
// Total size of draw_matrix's output (labels included) without drawing.
ImVec2 matrix_footprint(const MatrixRequest& req, const DrawContext& ctx);

// The body font when a cell of `req` at its largest holds "−0.00", else the small one
// (focus and presenter mode: the room reads the numbers).
ImFont* readable_font(const MatrixRequest& req, const DrawContext& ctx);

MatrixPlacement draw_matrix(const MatrixRequest& req, const DrawContext& ctx);
// Legends are at least this wide (at 1x) so that their range labels never overlap.
constexpr float kLegendMinWidth = 160.0f;
// The colour bar and its ticks (never wrapped), `width` wide; returns the ticks drawn.
std::vector<FigureInfo> draw_legend(const ColorScale& scale, float width, const DrawContext& ctx);
// A line of text that holds a number ("largest |difference| = 5.96e-08"), never broken
// over lines: in the small font, and smaller still when `width` is narrower than it.
FigureInfo draw_figure(const std::string& text, float width, const DrawContext& ctx);

}  // namespace app
