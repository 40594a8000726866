#pragma once
// A heatmap's axis labels: the tokens down its left side (rows) and along its top
// (columns). A column label too wide for its cell lying flat is turned 90° (reading
// upwards, as plotting libraries turn tick labels) and cut with "…" only when even
// turned it is longer than a label may be; cells too small for a line of text get no
// labels, and a line says the tokens are on hover. The row and column under the pointer
// or in the lesson's highlight are drawn whole and emphasised.
// Everything here works in the font pushed by the caller.
#include <string>
#include <vector>

#include "imgui.h"
#include "state/frame_report.h"
#include "state/stage_marks.h"

namespace app {

// The longest a label is drawn, along its text: up to kLabelEms font sizes where that is
// at most a third of the matrix's side, and at least kMinLabelEms (row labels at least
// kRowLabelPx). A turned label longer than that is drawn in smaller type, down to
// kMinLabelScale of the font, and only then cut with "…".
// (tests/app_readable.py holds the app to this.)
constexpr float kLabelEms = 12.0f;
constexpr float kMinLabelEms = 2.5f;
constexpr float kMinLabelScale = 0.75f;
constexpr float kRowLabelPx = 110.0f;  // at 1x: the row labels' room at least
float label_cap(float across, float ui_scale);

struct AxisPlan {
    bool shown = false;   // labels are drawn
    bool turned = false;  // columns: at 90°
    bool note = false;    // no room for them: a line above says the tokens are on hover
    float band = 0.0f;    // the room they take: the rows' width, the columns' height (gaps included)
    float cap = 0.0f;     // the longest a label may be along its text
};
// From the cell's height (rows) or width (columns) and the heatmap's size.
AxisPlan plan_row_labels(const std::vector<std::string>* labels, float cell_h, float heat_w, float ui_scale);
AxisPlan plan_col_labels(const std::vector<std::string>* labels, float cell_w, float heat_w, float heat_h,
                         float ui_scale);

// `text` cut to `width` pixels, ending in "…" when cut (whole UTF-8 characters only).
std::string fit_text(const std::string& text, float width);

// `text` turned 90° counter-clockwise (reading upwards): its baseline's start at
// `start`'s y, the line's height centred on `start`'s x. Returns its bounding box.
Rect add_text_turned(ImDrawList* dl, ImVec2 start, ImU32 col, const char* text);

struct LabelPlace {
    const std::vector<std::string>* rows = nullptr;
    const std::vector<std::string>* cols = nullptr;
    AxisPlan row_plan, col_plan;
    ImVec2 heat_min;            // the heatmap's top-left corner
    ImVec2 cell;
    float gap = 0.0f;           // between the labels and the cells
    int hot_row = -1, hot_col = -1;  // the pointer's cell
    const CellMarks* marks = nullptr;  // the lesson's cells and rows
    const CellMarks* label_marks = nullptr;  // marks on other heatmaps that share these row labels
};
// Draws both axes' labels and says what was drawn where.
void draw_axis_labels(const LabelPlace& at, ImDrawList* dl, AxisLabelsInfo& rows, AxisLabelsInfo& cols);

}  // namespace app
