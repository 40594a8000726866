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

// One scale for the user's matrix and attnscope's, so that equal colours are equal
// numbers: weights (never negative) from 0 to their largest, else around 0.
ColorScale shared_scale(const CheckCells& c) {
    if (c.lo >= 0.0f) return ColorScale{ColorMode::Sequential, 0.0f, c.hi > 0.0f ? c.hi : 1.0f};
    const float m = std::max(-c.lo, c.hi);
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

void head_buttons(OpenCheck& k, WidgetRects& widgets) {
    const std::vector<bool>& differ = k.head_differs[k.stage];
    for (size_t h = 0; h < differ.size(); ++h) {
        const std::string label = "head " + std::to_string(h) + (differ[h] ? "  ✗" : "  ✓");
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
    if (k.result.compared[k.stage].yours.size() > 1) head_buttons(k, report.widgets);
    const CheckCells& cells = check_cells(k);  // clamps k.stage and k.head
    const attn::ComparedStage& s = k.result.compared[k.stage];
    const auto h = static_cast<size_t>(k.head);
    for (const attn::ComparedStage& each : k.result.compared) shown.stages.push_back(each.stage);
    shown.stage = s.stage;
    shown.heads = static_cast<int>(s.yours.size());
    shown.head = s.yours.size() > 1 || s.stage == "weights" || s.stage == "dropped_weights" ? k.head : -1;
    shown.differing = cells.differing;
    shown.outlined = static_cast<long>(cells.outlined.size());

    const attn::Matrix& yours = s.yours[h];
    const attn::Matrix& ours = s.ours[h];
    CellMarks marks;
    marks.cells = cells.outlined;
    const ColorScale same = shared_scale(cells);
    const float d = std::max(cells.largest, static_cast<float>(s.tolerance));
    const Card cards[] = {{"yours", "check/yours", &yours, same},
                          {"attnscope (PyTorch's)", "check/attnscope", &ours, same},
                          {"yours − attnscope", "check/difference", &cells.difference, {ColorMode::Diverging, -d, d}}};
    char note[160];
    std::snprintf(note, sizeof note, "%ld cell%s beyond the tolerance %.3g%s; largest |difference| %.3g",
                  shown.differing, shown.differing == 1 ? "" : "s", s.tolerance,
                  shown.differing > shown.outlined ? " (the first 400 outlined)" : "", cells.largest);
    ImGui::TextUnformatted(note);

    // The heatmaps upload values when the version they are given changes: the selection's.
    DrawContext here = ctx;
    here.run_version = cells.version;
    const std::vector<std::string> rows = numbered(yours.rows()), cols = numbered(yours.cols());
    const float side = std::clamp((ImGui::GetContentRegionAvail().x - 2.0f * card_gap()) / 3.0f - 40.0f * ctx.ui_scale,
                                  100.0f * ctx.ui_scale, 360.0f * ctx.ui_scale);
    for (size_t i = 0; i < 3; ++i) {
        const Card& card = cards[i];
        MatrixRequest req;
        req.key = card.key;
        req.values = card.values;
        req.masked_by = i == 1 ? nullptr : &cells.not_finite;
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
        MatrixPlacement p = draw_matrix(req, here);
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
