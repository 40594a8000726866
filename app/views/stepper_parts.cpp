#include "views/stepper_parts.h"

#include <algorithm>

#include "views/wrapping.h"

namespace app {

ColorScale signed_scale(const attn::Matrix& m) {
    const float most = m.size() ? std::max(1e-6f, m.cwiseAbs().maxCoeff()) : 1.0f;
    return ColorScale{ColorMode::Diverging, -most, most};
}

void draw_titled_matrices(const std::vector<TitledMatrix>& matrices, float side, const DrawContext& ctx,
                          HeatmapRegistry& shown) {
    const float gap = ImGui::GetStyle().ItemSpacing.x * 3.0f;
    const float avail = ImGui::GetContentRegionAvail().x;
    float x = 0.0f;
    for (size_t i = 0; i < matrices.size(); ++i) {
        const TitledMatrix& t = matrices[i];
        if (!t.values || t.values->size() == 0) continue;
        MatrixRequest req;
        req.key = t.key;
        req.values = t.values;
        req.masked_by = t.masked_by;
        req.scale = t.scale;
        req.row_labels = t.row_labels;
        req.col_labels = t.col_labels;
        req.max_size = ImVec2(side, side);
        req.max_cell = 56.0f * ctx.ui_scale;
        req.widen_for_values = true;
        req.export_name = t.key.substr(t.key.find('/') + 1);
        // A wide matrix (a row of weights) takes the width it needs, up to the pane.
        const float want = std::min(avail, std::max(side, ImGui::CalcTextSize(t.title.c_str()).x));
        if (i > 0 && x + want <= avail) ImGui::SameLine(0.0f, gap);
        else x = 0.0f;
        x += want + gap;
        ImGui::BeginGroup();
        ImGui::TextUnformatted(t.title.c_str());
        const MatrixPlacement p = draw_matrix(req, ctx);
        ImGui::EndGroup();
        record(shown, t.key, p, *t.values);
    }
}

bool step_slider(const char* id, int& value, int lo, int hi, const char* format, const DrawContext& ctx,
                 WidgetRects& rects) {
    const int before = value;
    const std::string name(id);
    if (ImGui::ArrowButton((name + "_prev").c_str(), ImGuiDir_Left)) --value;
    rects.record(name + "_prev");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::min(360.0f * ctx.ui_scale, ImGui::GetContentRegionAvail().x * 0.6f));
    ImGui::SliderInt(("##" + name).c_str(), &value, lo, hi, format);
    rects.record(name);
    ImGui::SameLine();
    if (ImGui::ArrowButton((name + "_next").c_str(), ImGuiDir_Right)) ++value;
    rects.record(name + "_next");
    value = std::clamp(value, lo, hi);
    return value != before;
}

}  // namespace app
