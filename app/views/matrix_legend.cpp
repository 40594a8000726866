#include <algorithm>

#include "views/matrix_widget.h"
#include "views/stage_labels.h"

// The colour bar under a heatmap and the figures beside it. Numbers never wrap: Dear
// ImGui's wrapping breaks after '.', which laid "1.00" out as "1." over "00".

namespace app {

namespace {

FigureInfo item_figure(const std::string& text) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    return {text, {a.x, a.y, b.x, b.y}, ImGui::GetTextLineHeight()};
}

}  // namespace

std::vector<FigureInfo> draw_legend(const ColorScale& scale, float width, const DrawContext& ctx) {
    std::vector<FigureInfo> figures;
    ImGui::PushFont(ctx.fonts.small);
    ImGui::PushTextWrapPos(-1.0f);  // a card's wrap width must not reach its ticks
    const float s = ctx.ui_scale;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (scale.mode == ColorMode::Mask) {
        // Two swatches drawn by the same shader as the cells.
        static const attn::Matrix masked = attn::Matrix::Constant(1, 1, 1.0f);
        static const attn::Matrix kept = attn::Matrix::Constant(1, 1, 0.0f);
        const ImVec2 sw(18.0f * s, 14.0f * s);
        for (int i = 0; i < 2; ++i) {
            Heatmap& h = ctx.cache.get(i == 0 ? "legend/masked" : "legend/kept");
            h.set_values(i == 0 ? masked : kept, 0);
            h.draw(ctx.painter, sw, scale, 0.0f);
            dl->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), IM_COL32(0, 0, 0, 120));
            ImGui::SameLine();
            const char* text = i == 0 ? "masked (1)" : "visible (0)";
            ImGui::TextUnformatted(text);
            figures.push_back(item_figure(text));
            if (i == 0) ImGui::SameLine();
        }
        ImGui::PopTextWrapPos();
        ImGui::PopFont();
        return figures;
    }
    // The bar is a 1 x 256 matrix running over the map's whole domain, coloured by the
    // shader into its 256 x 1 cells' texture that the image stretches; the labels say
    // which values its ends stand for. Every card's bar shares it.
    static const attn::Matrix unit_ramp = attn::Matrix(attn::RowVector::LinSpaced(256, 0.0f, 1.0f));
    static const attn::Matrix signed_ramp = attn::Matrix(attn::RowVector::LinSpaced(256, -1.0f, 1.0f));
    const bool diverging = scale.mode == ColorMode::Diverging;
    Heatmap& bar = ctx.cache.get(diverging ? "legend/diverging" : "legend/sequential");
    bar.set_values(diverging ? signed_ramp : unit_ramp, 0);
    const ColorScale unit = diverging ? ColorScale{ColorMode::Diverging, -1.0f, 1.0f} : ColorScale{};
    const ImVec2 size(std::max(width, kLegendMinWidth * s), 12.0f * s);
    bar.draw(ctx.painter, size, unit, 0.0f);
    const ImVec2 a = ImGui::GetItemRectMin();
    dl->AddRect(a, ImGui::GetItemRectMax(), IM_COL32(0, 0, 0, 120));
    const std::string lo = format_value(scale.lo, 2), hi = format_value(scale.hi, 2);
    ImGui::TextUnformatted(lo.c_str());
    figures.push_back(item_figure(lo));
    const float hi_w = ImGui::CalcTextSize(hi.c_str()).x;
    ImGui::SameLine(0, 0);
    ImGui::SetCursorScreenPos(ImVec2(a.x + size.x - hi_w, ImGui::GetCursorScreenPos().y));
    ImGui::TextUnformatted(hi.c_str());
    figures.push_back(item_figure(hi));
    if (diverging) {
        const ImVec2 zero = ImGui::CalcTextSize("0");
        const ImVec2 at(a.x + size.x * 0.5f - zero.x * 0.5f, ImGui::GetItemRectMin().y);
        dl->AddText(at, IM_COL32(0, 0, 0, 255), "0");
        figures.push_back({"0", {at.x, at.y, at.x + zero.x, at.y + zero.y}, ImGui::GetTextLineHeight()});
    }
    ImGui::PopTextWrapPos();
    ImGui::PopFont();
    return figures;
}

FigureInfo draw_figure(const std::string& text, float width, const DrawContext& ctx) {
    ImGui::PushFont(ctx.fonts.small);
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    // Smaller type rather than a break, down to 70 %; past that it runs over the edge.
    const float ratio = width > 0.0f && size.x > width ? std::max(width / size.x, 0.7f) : 1.0f;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 drawn(size.x * ratio, size.y * ratio);
    ImGui::GetWindowDrawList()->AddText(ImGui::GetFont(), ImGui::GetFontSize() * ratio, at,
                                        ImGui::GetColorU32(ImGuiCol_Text), text.c_str());
    ImGui::Dummy(drawn);
    const FigureInfo f{text, {at.x, at.y, at.x + drawn.x, at.y + drawn.y}, ImGui::GetTextLineHeight() * ratio};
    ImGui::PopFont();
    return f;
}

}  // namespace app
