#include "views/matrix_widget.h"

#include <algorithm>
#include <cmath>

#include "views/matrix_labels.h"
#include "views/stage_labels.h"
#include "graphics/ui_colors.h"

namespace app {

namespace {

// One right-click menu is open at a time, so one pending request is enough.
std::optional<MatrixExportRequest> pending_export;

// The width a cell needs for its number in the current font: the widest of the
// colour scale's ends, which bound the values ("0.38" for weights, "−0.45" signed).
float value_width(const MatrixRequest& req) {
    if (req.scale.mode == ColorMode::Mask) return ImGui::CalcTextSize("0").x + 2.0f;
    const std::string lo = format_value(req.scale.lo, 2), hi = format_value(req.scale.hi, 2);
    return std::max({ImGui::CalcTextSize(lo.c_str()).x, ImGui::CalcTextSize(hi.c_str()).x,
                     ImGui::CalcTextSize("0.00").x}) +
           // A margin of an eighth of the font size either side: the number must not touch the
           // grid. (A quarter either side left a 36 px cell at 1x without its "0.38": 36.5 px.)
           ImGui::GetFontSize() * 0.25f;
}

struct Layout {
    ImVec2 heat;          // heatmap size
    ImVec2 cell;
    AxisPlan rows, cols;  // the labels' room and form
    float row_label_w = 0.0f;
    float col_label_h = 0.0f;
};

Layout layout_of(const MatrixRequest& req, const DrawContext& ctx) {
    Layout l;
    const int rows = static_cast<int>(req.values->rows());
    const int cols = static_cast<int>(req.values->cols());
    ImGui::PushFont(req.text_font ? req.text_font : ctx.fonts.small);
    l.heat = heatmap_size(rows, cols, req.max_size, req.max_cell * ctx.ui_scale,
                          req.widen_for_values ? value_width(req) : 0.0f, req.whole_pixel_cells);
    l.cell = ImVec2(l.heat.x / static_cast<float>(cols), l.heat.y / static_cast<float>(rows));
    l.rows = plan_row_labels(req.row_labels, l.cell.y, l.heat.x, ctx.ui_scale);
    l.cols = plan_col_labels(req.col_labels, l.cell.x, l.heat.x, l.heat.y, ctx.ui_scale);
    l.row_label_w = l.rows.band;
    l.col_label_h = l.cols.band;
    ImGui::PopFont();
    return l;
}

// Numbers inside the cells, black or white for contrast, only when they fit.
bool draw_values(const MatrixRequest& req, const MatrixPlacement& p, const DrawContext& ctx, ImDrawList* dl) {
    if (!req.show_values || p.cell.x < value_width(req) || p.cell.y < ImGui::GetTextLineHeight()) return false;
    const attn::Matrix& m = *req.values;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            const bool masked = req.masked_by && (*req.masked_by)(r, c) > 0.5f;
            const float v = m(r, c);
            if (masked && !std::isinf(v)) continue;  // a weight the mask zeroed: the stripes say it
            const std::string s = req.scale.mode == ColorMode::Mask ? (v > 0.5f ? "1" : "0") : format_value(v, 2);
            const bool dark_cell = std::isinf(v) || req.scale.mode == ColorMode::Mask
                                       ? false
                                       : luminance(ctx.painter.color_of(req.scale, v)) < 0.45f;
            const ImVec2 size = ImGui::CalcTextSize(s.c_str());
            const ImVec2 at(p.min.x + p.cell.x * (static_cast<float>(c) + 0.5f) - size.x * 0.5f,
                            p.min.y + p.cell.y * (static_cast<float>(r) + 0.5f) - size.y * 0.5f);
            if (std::isinf(v) || (req.scale.mode == ColorMode::Mask && v > 0.5f))  // readable on the stripes
                dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y),
                                  IM_COL32(255, 255, 255, 230));
            dl->AddText(at, dark_cell ? IM_COL32(255, 255, 255, 255) : IM_COL32(0, 0, 0, 255), s.c_str());
        }
    return true;
}

// A lesson's cells: a white halo under the theme's frame (magenta in the default)
// reads on every colour map.
// Marks come from a step whose run may not be the one drawn yet: those outside this
// matrix are skipped.
void draw_marks(const CellMarks& marks, const attn::Matrix& m, MatrixPlacement& p, float scale, ImDrawList* dl) {
    const ImU32 halo = IM_COL32(255, 255, 255, 255), frame = ui_color32(ui_colors().lesson_frame);
    const auto outline = [&](ImVec2 a, ImVec2 b) {
        dl->AddRect(a, b, halo, 0.0f, 0, 6.0f * scale);
        dl->AddRect(a, b, frame, 0.0f, 0, 3.0f * scale);
        p.marked.push_back({a.x, a.y, b.x, b.y});
    };
    const auto inside = [&](int r, int c) { return r >= 0 && r < m.rows() && c >= 0 && c < m.cols(); };
    for (int r : marks.rows)
        if (inside(r, 0))
            outline(ImVec2(p.min.x, p.min.y + p.cell.y * static_cast<float>(r)),
                    ImVec2(p.max.x, p.min.y + p.cell.y * static_cast<float>(r + 1)));
    for (const auto& [r, c] : marks.cells) {
        if (!inside(r, c)) continue;
        const ImVec2 a(p.min.x + p.cell.x * static_cast<float>(c), p.min.y + p.cell.y * static_cast<float>(r));
        outline(a, ImVec2(a.x + p.cell.x, a.y + p.cell.y));
    }
}

void export_menu(const MatrixRequest& req) {
    if ((req.export_name.empty() && !req.menu_items) || !ImGui::BeginPopupContextItem(req.key.c_str())) return;
    if (req.menu_items) {
        req.menu_items();
        if (req.export_name.empty()) return ImGui::EndPopup();
        ImGui::Separator();
    }
    ImGui::TextDisabled("%s", req.export_name.c_str());
    const std::pair<const char*, const char*> items[] = {
        {"Save PNG…", "png"}, {"Save CSV…", "csv"}, {"Save JSON…", "json"}, {"Save NumPy .npy…", "npy"}};
    for (const auto& [label, format] : items)
        if (ImGui::MenuItem(label)) {
            pending_export = MatrixExportRequest{req.export_name, format, *req.values, std::nullopt, req.scale};
            if (req.masked_by) pending_export->masked_by = *req.masked_by;
        }
    ImGui::EndPopup();
}

}  // namespace

std::optional<MatrixExportRequest> take_matrix_export() {
    std::optional<MatrixExportRequest> r = std::move(pending_export);
    pending_export.reset();
    return r;
}

ImVec2 heatmap_size(int rows, int cols, ImVec2 max_size, float max_cell, float value_w, bool whole_pixel_cells) {
    const float fr = static_cast<float>(rows), fc = static_cast<float>(cols);
    const float cw = std::min(std::max(max_cell, value_w), max_size.x / fc);
    const float ch = std::min(max_cell, max_size.y / fr);
    // Square cells when they stay visible; a tall or wide matrix (768 x 64 weights)
    // gets non-square cells rather than a sliver.
    float w = cw, h = ch;
    if (std::min(cw, ch) >= 3.0f) w = h = std::min(cw, ch);
    // Wide enough to read, where the width is spare and the cell is tall enough for a line.
    if (w < value_w && cw >= value_w && h * 3.0f >= value_w) w = std::ceil(value_w);  // ceil: floored below, it would not fit
    if (w >= 1.0f && whole_pixel_cells) w = std::floor(w);
    if (h >= 1.0f && whole_pixel_cells) h = std::floor(h);
    return ImVec2(std::max(1.0f, std::floor(w * fc)), std::max(1.0f, std::floor(h * fr)));
}

ImVec2 matrix_footprint(const MatrixRequest& req, const DrawContext& ctx) {
    const Layout l = layout_of(req, ctx);
    return ImVec2(l.row_label_w + l.heat.x, l.col_label_h + l.heat.y);
}

ImFont* readable_font(const MatrixRequest& req, const DrawContext& ctx) {
    MatrixRequest body = req;
    body.text_font = ctx.fonts.body;
    const ImVec2 heat = heatmap_size_of(body, ctx);
    ImGui::PushFont(ctx.fonts.body);
    const bool fits = heat.x / static_cast<float>(req.values->cols()) >= value_width(req) &&
                      heat.y / static_cast<float>(req.values->rows()) >= ImGui::GetTextLineHeight();
    ImGui::PopFont();
    return fits ? ctx.fonts.body : ctx.fonts.small;
}

ImVec2 heatmap_size_of(const MatrixRequest& req, const DrawContext& ctx) { return layout_of(req, ctx).heat; }

MatrixPlacement draw_matrix(const MatrixRequest& req, const DrawContext& ctx) {
    const Layout l = layout_of(req, ctx);
    ImVec2 origin = ImGui::GetCursorScreenPos();
    origin = ImVec2(std::floor(origin.x), std::floor(origin.y));  // whole pixels: one texel per pixel
    MatrixPlacement p;
    p.min = ImVec2(origin.x + l.row_label_w, origin.y + l.col_label_h);
    p.max = ImVec2(p.min.x + l.heat.x, p.min.y + l.heat.y);
    p.cell = l.cell;

    Heatmap& heatmap = ctx.cache.get(req.key);
    ImGui::SetCursorScreenPos(p.min);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (ImGui::IsRectVisible(p.min, p.max)) {
        // Only heatmaps on screen are uploaded and painted: after a change, repainting the
        // cards scrolled out of view cost software GL most of the time to the new view.
        heatmap.set_values(*req.values, ctx.run_version, req.masked_by, texel_budget(std::max(l.heat.x, l.heat.y)));
        const float grid = std::min(l.cell.x, l.cell.y) >= 12.0f ? 1.0f : 0.0f;
        heatmap.draw(ctx.painter, l.heat, req.scale, grid);
    } else {
        ImGui::Dummy(l.heat);
    }
    p.visible = ImGui::IsItemVisible();
    p.hovered = ImGui::IsItemHovered();
    p.clicked = ImGui::IsItemClicked();
    export_menu(req);
    if (p.hovered) {
        const ImVec2 m = ImGui::GetMousePos();
        p.col = std::clamp(static_cast<int>((m.x - p.min.x) / l.cell.x), 0, static_cast<int>(req.values->cols()) - 1);
        p.row = std::clamp(static_cast<int>((m.y - p.min.y) / l.cell.y), 0, static_cast<int>(req.values->rows()) - 1);
    }

    ImGui::PushFont(req.text_font ? req.text_font : ctx.fonts.small);
    LabelPlace at;
    at.rows = req.row_labels;
    at.cols = req.col_labels;
    at.row_plan = l.rows;
    at.col_plan = l.cols;
    at.heat_min = p.min;
    at.cell = l.cell;
    at.gap = 6.0f * ctx.ui_scale;
    at.hot_row = p.row;
    at.hot_col = p.col;
    at.marks = req.marks;
    at.label_marks = req.label_marks;
    draw_axis_labels(at, dl, p.row_labels, p.col_labels);
    p.font_px = ImGui::GetFontSize();
    p.values_rounded = draw_values(req, p, ctx, dl);
    if (req.show_values) p.value_px = value_width(req);
    ImGui::PopFont();
    if (p.hovered) {
        const ImVec2 a(p.min.x + l.cell.x * static_cast<float>(p.col), p.min.y + l.cell.y * static_cast<float>(p.row));
        const ImVec2 b(a.x + std::max(l.cell.x, 2.0f), a.y + std::max(l.cell.y, 2.0f));
        dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), IM_COL32(0, 0, 0, 255), 0.0f, 0, 3.0f);
        dl->AddRect(a, b, IM_COL32(255, 255, 255, 255), 0.0f, 0, 1.0f);
    }
    if (req.marks) draw_marks(*req.marks, *req.values, p, ctx.ui_scale, dl);
    if (req.highlight)
        dl->AddRect(ImVec2(p.min.x - 4, p.min.y - 4), ImVec2(p.max.x + 4, p.max.y + 4), ui_color32(ui_colors().stage_frame),
                    0.0f, 0, 3.0f * ctx.ui_scale);
    // Leave the cursor below the whole widget.
    ImGui::SetCursorScreenPos(ImVec2(origin.x, p.max.y));
    ImGui::Dummy(ImVec2(l.row_label_w + l.heat.x, 0.0f));
    return p;
}

HeatmapInfo heatmap_info(const MatrixPlacement& p, const attn::Matrix& m) {
    return {{p.min.x, p.min.y, p.max.x, p.max.y}, p.cell.x, p.cell.y, p.visible, p.hovered, p.row, p.col,
            static_cast<int>(m.rows()), static_cast<int>(m.cols()), p.marked, 0, 0, 0, 0, p.font_px,
            p.row_labels, p.col_labels, p.figures, Rect{}, p.value_px, p.values_rounded};
}

}  // namespace app
