#include "views/check_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "graphics/ui_colors.h"
#include "views/card_grid.h"
#include "views/wrapping.h"

namespace app {

namespace {

// Outlines are drawn one rectangle a cell: past this many, the difference's colours say
// where the rest are.
constexpr long kMaxOutlined = 400;

bool differs(float yours, float ours, double tolerance) { return !(std::abs(yours - ours) <= tolerance); }  // nan too

bool any_differs(const attn::Matrix& yours, const attn::Matrix& ours, double tolerance) {
    for (Eigen::Index i = 0; i < yours.size(); ++i)
        if (differs(yours.data()[i], ours.data()[i], tolerance)) return true;
    return false;
}

// One scale for the user's matrix and attnscope's, so that equal colours are equal
// numbers: weights (never negative) from their least to their largest, else around 0.
ColorScale shared_scale(const attn::Matrix& yours, const attn::Matrix& ours) {
    float lo = 0.0f, hi = 0.0f;
    for (const attn::Matrix* m : {&yours, &ours})
        for (Eigen::Index i = 0; i < m->size(); ++i)
            if (const float v = m->data()[i]; std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    if (lo >= 0.0f) return ColorScale{ColorMode::Sequential, 0.0f, hi > 0.0f ? hi : 1.0f};
    const float m = std::max(-lo, hi);
    return ColorScale{ColorMode::Diverging, -m, m};
}

std::vector<std::string> numbered(Eigen::Index n) {
    std::vector<std::string> labels;
    for (Eigen::Index i = 0; i < n; ++i) labels.push_back(std::to_string(i));
    return labels;
}

// The compared stages as buttons, ✓ where they match, ✗ where they differ.
void stage_buttons(OpenCheck& k, WidgetRects& widgets) {
    for (size_t i = 0; i < k.result.compared.size(); ++i) {
        const attn::ComparedStage& s = k.result.compared[i];
        const bool first = k.result.first && k.result.first->stage == s.stage;
        const std::string label = s.stage + (first ? "  ✗" : "  ✓");
        if (i) same_line_if_fits(radio_width(label.c_str()));
        if (ImGui::RadioButton(label.c_str(), k.stage == i)) {
            k.stage = i;
            k.head = first && k.result.first->head >= 0 ? k.result.first->head : 0;
        }
        widgets.record("check_stage_" + s.stage);
    }
}

void head_buttons(OpenCheck& k, const attn::ComparedStage& s, WidgetRects& widgets) {
    for (size_t h = 0; h < s.yours.size(); ++h) {
        const bool same = !any_differs(s.yours[h], s.ours[h], s.tolerance);
        const std::string label = "head " + std::to_string(h) + (same ? "  ✓" : "  ✗");
        if (h) same_line_if_fits(radio_width(label.c_str()));
        if (ImGui::RadioButton(label.c_str(), k.head == static_cast<int>(h))) k.head = static_cast<int>(h);
        widgets.record("check_head_" + std::to_string(h));
    }
}

struct Card {
    const char* title;
    const char* key;
    const attn::Matrix* values;
    ColorScale scale;
};

}  // namespace

void draw_check_view(ViewState& c, const DrawContext& ctx, FrameReport& report) {
    if (!c.check) {
        text_wrapped("File > Check my attention code… opens a module recorded by attnscope_record "
                     "(attnscope-cli --print-recorder prints it; docs/check.md says how).");
        return;
    }
    OpenCheck& k = *c.check;
    CheckReport& shown = report.check;
    shown.shown = true;
    shown.path = k.path;
    shown.report = k.report;
    shown.matches = !k.result.first;
    ImGui::PushFont(ctx.fonts.heading);
    text_wrapped("Check of %s", std::filesystem::path(k.path).filename().string().c_str());
    ImGui::PopFont();
    // The CLI's lines: the first difference and its diagnosis in the error colour.
    size_t from = 0;
    while (from < k.report.size()) {
        const size_t end = std::min(k.report.find('\n', from), k.report.size());
        const std::string line = k.report.substr(from, end - from);
        from = end + 1;
        const bool bad = line.rfind("  differs:", 0) == 0 || line.rfind("  why:", 0) == 0;
        if (bad) text_wrapped_colored(ui_color(ui_colors().error), "%s", line.c_str());
        else text_wrapped("%s", line.c_str());
    }
    if (k.result.compared.empty()) return;
    ImGui::Separator();
    stage_buttons(k, report.widgets);
    const attn::ComparedStage& s = k.result.compared[std::min(k.stage, k.result.compared.size() - 1)];
    if (s.yours.size() > 1) head_buttons(k, s, report.widgets);
    const size_t h = std::min(static_cast<size_t>(std::max(k.head, 0)), s.yours.size() - 1);
    for (const attn::ComparedStage& each : k.result.compared) shown.stages.push_back(each.stage);
    shown.stage = s.stage;
    shown.heads = static_cast<int>(s.yours.size());
    shown.head = s.yours.size() > 1 || s.stage == "weights" || s.stage == "dropped_weights" ? static_cast<int>(h) : -1;

    const attn::Matrix& yours = s.yours[h];
    const attn::Matrix& ours = s.ours[h];
    // Cells the user's module left infinite or nan (a masked score): drawn as masked.
    attn::Matrix not_finite = attn::Matrix::Zero(yours.rows(), yours.cols());
    attn::Matrix difference = yours - ours;  // rows x cols, as the stage
    CellMarks marks;
    for (Eigen::Index i = 0; i < yours.rows(); ++i)
        for (Eigen::Index j = 0; j < yours.cols(); ++j) {
            if (!std::isfinite(yours(i, j))) {
                not_finite(i, j) = 1.0f;
                difference(i, j) = 0.0f;
            }
            if (!differs(yours(i, j), ours(i, j), s.tolerance)) continue;
            ++shown.differing;
            if (static_cast<long>(marks.cells.size()) < kMaxOutlined)
                marks.cells.emplace_back(static_cast<int>(i), static_cast<int>(j));
        }
    shown.outlined = static_cast<long>(marks.cells.size());
    const float largest = difference.size() ? difference.cwiseAbs().maxCoeff() : 0.0f;
    const ColorScale same = shared_scale(yours, ours);
    const float d = std::max(largest, static_cast<float>(s.tolerance));
    const Card cards[] = {{"yours", "check/yours", &yours, same},
                          {"attnscope (PyTorch's)", "check/attnscope", &ours, same},
                          {"yours − attnscope", "check/difference", &difference, {ColorMode::Diverging, -d, d}}};
    char note[160];
    std::snprintf(note, sizeof note, "%ld cell%s beyond the tolerance %.3g%s; largest |difference| %.3g",
                  shown.differing, shown.differing == 1 ? "" : "s", s.tolerance,
                  shown.differing > shown.outlined ? " (the first 400 outlined)" : "", largest);
    ImGui::TextUnformatted(note);

    const std::vector<std::string> rows = numbered(yours.rows()), cols = numbered(yours.cols());
    const float side = std::clamp((ImGui::GetContentRegionAvail().x - 2.0f * card_gap()) / 3.0f - 40.0f * ctx.ui_scale,
                                  100.0f * ctx.ui_scale, 360.0f * ctx.ui_scale);
    for (size_t i = 0; i < 3; ++i) {
        const Card& card = cards[i];
        MatrixRequest req;
        req.key = card.key;
        req.values = card.values;
        req.masked_by = i == 1 ? nullptr : &not_finite;
        req.scale = card.scale;
        req.row_labels = &rows;
        req.col_labels = &cols;
        req.max_size = ImVec2(side, side);
        req.max_cell = 48.0f * ctx.ui_scale;
        req.marks = marks.empty() ? nullptr : &marks;
        // A difference rounded to 2 decimals reads 0.00 where it matters: its colours and the
        // tooltip's exact value say it.
        req.show_values = i < 2;
        req.export_name = std::string("check_") + s.stage + "_" + (i == 0 ? "yours" : i == 1 ? "attnscope" : "difference");
        if (i) ImGui::SameLine(0.0f, card_gap());
        ImGui::BeginGroup();
        ImGui::PushFont(ctx.fonts.heading);
        ImGui::TextUnformatted(card.title);
        ImGui::PopFont();
        MatrixPlacement p = draw_matrix(req, ctx);
        p.figures = draw_legend(req.scale, std::max(p.max.x - p.min.x, kLegendMinWidth * ctx.ui_scale), ctx);
        ImGui::EndGroup();
        if (p.hovered)
            ImGui::SetTooltip("row %d, column %d: yours %.7g, attnscope %.7g, difference %.3g", p.row, p.col,
                              static_cast<double>(yours(p.row, p.col)), static_cast<double>(ours(p.row, p.col)),
                              static_cast<double>(yours(p.row, p.col) - ours(p.row, p.col)));
        report.heatmaps[card.key] = heatmap_info(p, *card.values);
    }
}

}  // namespace app
