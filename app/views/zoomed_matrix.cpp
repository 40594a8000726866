#include "views/zoomed_matrix.h"

#include <algorithm>
#include <cmath>

#include "views/wrapping.h"

namespace app {

namespace {

constexpr double kWheelStep = 1.25;   // zoom per wheel notch
constexpr double kButtonStep = 2.0;   // per click of + or −

std::vector<std::string> slice(const std::vector<std::string>* labels, long first, long count) {
    if (!labels || first < 0 || first + count > static_cast<long>(labels->size())) return {};
    return std::vector<std::string>(labels->begin() + first, labels->begin() + first + count);
}

}  // namespace

void ZoomedMatrix::narrow(MatrixRequest& req, const std::string& name, uint64_t run_version) {
    const attn::Matrix& m = *req.values;
    zoom_.show(name, m.rows(), m.cols());
    if (!zoom_.zoomed()) return;
    const CellBlock b = zoom_.block();
    if (name != copied_name_ || run_version != copied_version_ || !(b == copied_)) {
        values_ = m.block(b.row0, b.col0, b.rows, b.cols);
        const bool masked = req.masked_by && req.masked_by->rows() == m.rows() && req.masked_by->cols() == m.cols();
        mask_ = masked ? attn::Matrix(req.masked_by->block(b.row0, b.col0, b.rows, b.cols)) : attn::Matrix();
        row_labels_ = slice(req.row_labels, b.row0, b.rows);
        col_labels_ = slice(req.col_labels, b.col0, b.cols);
        copied_name_ = name;
        copied_version_ = run_version;
        copied_ = b;
    }
    req.values = &values_;
    req.masked_by = mask_.size() ? &mask_ : nullptr;
    req.row_labels = req.row_labels && !row_labels_.empty() ? &row_labels_ : nullptr;
    req.col_labels = req.col_labels && !col_labels_.empty() ? &col_labels_ : nullptr;
    req.marks = nullptr;  // a lesson's outlines are for the whole matrix
    // The block fills the heatmap's room as the whole matrix did, whatever its cells' size.
    req.whole_pixel_cells = false;
    // Each block its own texture: the cache frees the last one at the frame's end.
    req.key += "@" + std::to_string(b.row0) + "," + std::to_string(b.col0) + "," + std::to_string(b.rows) + "," +
               std::to_string(b.cols);
}

void ZoomedMatrix::draw_bar(long rows, long cols, const DrawContext& ctx) {
    const CellBlock b = zoom_.block();
    ImGui::PushFont(ctx.fonts.small);
    ImGui::BeginDisabled(!zoom_.zoomed());
    if (ImGui::SmallButton("whole")) zoom_.reset();
    ImGui::SameLine();
    if (ImGui::SmallButton(" − ")) zoom_.zoom_about(1.0 / kButtonStep, 0.5, 0.5);
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::SmallButton(" + ")) zoom_.zoom_about(kButtonStep, 0.5, 0.5);
    ImGui::SameLine();
    if (zoom_.zoomed())
        text_wrapped("zoom ×%.1f: rows %ld–%ld of %ld, columns %ld–%ld of %ld. Drag to pan, wheel to zoom.", zoom_.zoom(),
                     b.row0 + 1, b.row0 + b.rows, rows, b.col0 + 1, b.col0 + b.cols, cols);
    else
        text_wrapped("Wheel over the heatmap to zoom, drag to pan.");
    ImGui::PopFont();
}

void ZoomedMatrix::interact(MatrixPlacement& p) {
    const ImGuiIO& io = ImGui::GetIO();
    const float w = p.max.x - p.min.x, h = p.max.y - p.min.y;
    const CellBlock b = zoom_.block();
    // The pointer over the heatmap, whatever item is active: a click on an image starts
    // no item of Dear ImGui's, and the frame of a press may not report it hovered.
    const bool over = p.visible && ImGui::IsMouseHoveringRect(p.min, p.max) &&
                      ImGui::IsWindowHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem);
    if (over && io.MouseWheel != 0.0f && w > 0.0f && h > 0.0f) {
        const double fy = (io.MousePos.y - p.min.y) / h, fx = (io.MousePos.x - p.min.x) / w;
        zoom_.zoom_about(std::pow(kWheelStep, static_cast<double>(io.MouseWheel)), fy, fx);
    }
    if (over && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) dragging_ = true;
    if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) dragging_ = false;
    if (dragging_ && zoom_.zoomed() && (io.MouseDelta.x != 0.0f || io.MouseDelta.y != 0.0f) && w > 0.0f && h > 0.0f)
        zoom_.pan(-io.MouseDelta.y / h * static_cast<double>(b.rows), -io.MouseDelta.x / w * static_cast<double>(b.cols));
    if (p.row >= 0) p.row += static_cast<int>(b.row0);
    if (p.col >= 0) p.col += static_cast<int>(b.col0);
}

}  // namespace app
