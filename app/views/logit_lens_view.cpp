#include "views/logit_lens_view.h"

#include <cstdio>
#include <string>

#include "run/run_lens.h"
#include "state/colormap.h"
#include "views/wrapping.h"

namespace app {

namespace {

const ColorScale kProbability{ColorMode::Sequential, 0.0f, 1.0f};

// A cell: the most probable token on the colour of its probability, its top 5 on hover.
void draw_cell(const attn::ModelRun& m, const std::vector<attn::TokenProbability>& top, const std::string& where,
               const DrawContext& ctx) {
    if (top.empty()) return;
    const Rgb rgb = ctx.painter.color_of(kProbability, top.front().prob);
    ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, ImGui::GetColorU32(ImVec4(rgb[0], rgb[1], rgb[2], 1.0f)));
    const ImVec4 ink = luminance(rgb) > 0.4f ? ImVec4(0, 0, 0, 1) : ImVec4(1, 1, 1, 1);
    const ImVec2 min = ImGui::GetCursorScreenPos();
    const ImVec2 max(min.x + ImGui::GetContentRegionAvail().x, min.y + ImGui::GetTextLineHeight());
    ImGui::TextColored(ink, "%s", attn::model_token_text(m.model, top.front().id).c_str());
    if (!ImGui::IsMouseHoveringRect(min, max) || !ImGui::IsWindowHovered()) return;
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(where.c_str());
    for (const attn::TokenProbability& t : top)
        ImGui::Text("%-18s %6.2f%%", attn::quoted_token(m.model, t.id).c_str(), static_cast<double>(t.prob) * 100.0);
    ImGui::EndTooltip();
}

}  // namespace

std::optional<bool> draw_logit_lens(const attn::ModelRun& m, bool asked, const DrawContext& ctx, WidgetRects& widgets) {
    std::optional<bool> changed;
    bool on = asked;
    if (ImGui::Checkbox("Logit lens: what the model would say after each layer", &on)) changed = on;
    widgets.record("logit_lens");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The final norm and the output head applied to the residual stream after each layer, at "
                          "the last %lld positions up to the one whose next tokens are shown.",
                          static_cast<long long>(attn::kLensPositions));
    if (!asked || m.lens.empty()) return changed;
    text_wrapped_disabled("Each cell is the most probable next token read from the residual stream there, coloured by "
                          "its probability (0 to 1); hover for the five most probable. The last row is the model's "
                          "own prediction.");
    const int columns = static_cast<int>(m.lens_positions.size()) + 1;
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
    // A row is a line and its cell padding (and a border); the table's child window scrolls
    // sideways only, so its height is every row's and the scrollbar's.
    const float row_h = ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y + 1.0f;
    const float height = row_h * static_cast<float>(m.lens.size() + 1) + ImGui::GetStyle().ScrollbarSize + 2.0f;
    if (!ImGui::BeginTable("logit_lens_grid", columns, flags, ImVec2(0.0f, height))) return changed;
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("read after");
    const float cell_w = 84.0f * ctx.ui_scale;
    for (const int64_t p : m.lens_positions) {
        const std::string header = std::to_string(p) + " " + attn::quoted_token(m.model, m.tokens.ids[static_cast<size_t>(p)]);
        ImGui::TableSetupColumn(header.c_str(), ImGuiTableColumnFlags_WidthFixed, cell_w);
    }
    ImGui::TableHeadersRow();
    static uint64_t scrolled_for = 0;  // one grid on screen at a time
    static int scroll_frames = 0;
    const size_t layers = m.lens.size() - 1;
    for (size_t e = 0; e < m.lens.size(); ++e) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        const std::string row = e == 0 ? "embeddings" : "layer " + std::to_string(e - 1) + (e == layers ? " (output)" : "");
        ImGui::TextUnformatted(row.c_str());
        for (size_t i = 0; i < m.lens_positions.size(); ++i) {
            ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
            ImGui::PushID(static_cast<int>(e * m.lens_positions.size() + i));
            draw_cell(m, m.lens[e][i], row + ", after position " + std::to_string(m.lens_positions[i]), ctx);
            ImGui::PopID();
            // A new run shows its last column, the position whose next tokens are above
            // (for a few frames: the columns' widths settle over the first).
            if (e + 1 == m.lens.size() && i + 1 == m.lens_positions.size() && scrolled_for != ctx.run_version) {
                ImGui::SetScrollX(ImGui::GetScrollMaxX());
                if (++scroll_frames == 3) scrolled_for = ctx.run_version, scroll_frames = 0;
            }
        }
    }
    ImGui::EndTable();
    widgets.record("logit_lens_grid");
    return changed;
}

}  // namespace app
