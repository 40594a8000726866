#include "views/head_lines_view.h"

#include <algorithm>
#include <string>
#include <vector>

#include "views/stage_labels.h"
#include "graphics/ui_colors.h"
#include "views/wrapping.h"

namespace app {

namespace {

// Okabe–Ito's colour-blind-safe palette, one colour per head (repeating after 8).
const ImU32 kHeadColours[] = {IM_COL32(0, 114, 178, 255),   IM_COL32(230, 159, 0, 255),
                              IM_COL32(0, 158, 115, 255),   IM_COL32(204, 121, 167, 255),
                              IM_COL32(86, 180, 233, 255),  IM_COL32(213, 94, 0, 255),
                              IM_COL32(240, 228, 66, 255),  IM_COL32(0, 0, 0, 255)};

ImU32 with_alpha(ImU32 colour, float alpha) {
    const auto a = static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f + 0.5f);
    return (colour & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

}  // namespace

void draw_head_lines(const attn::Run& run, const DrawContext& ctx, WidgetRects& widgets) {
    const auto& heads = run.trace.heads;
    // A run too long for every head's weights keeps those of the head on screen only.
    const auto first = std::find_if(heads.begin(), heads.end(), [](const attn::HeadTrace& h) { return h.find("weights"); });
    if (first == heads.end()) {
        ImGui::TextUnformatted("This run has no attention weights to draw.");
        return;
    }
    const attn::Stage& s0 = *first->find("weights");
    const attn::Matrix& w0 = s0.value;
    const int rows = std::min(static_cast<int>(w0.rows()), kHeadLinesMaxTokens);
    const int cols = std::min(static_cast<int>(w0.cols()), kHeadLinesMaxTokens);
    const std::vector<std::string> queries = axis_labels(run, attn::Axis::Tokens, static_cast<int>(w0.rows()));
    const std::vector<std::string> keys = axis_labels(run, s0.cols, static_cast<int>(w0.cols()));
    const bool every_head = std::all_of(heads.begin(), heads.end(), [](const attn::HeadTrace& h) { return h.find("weights"); });

    text_wrapped("Each line joins a query (left) to a key (right); its opacity is the weight. One colour per "
                 "head; hover a token to see only its lines.%s%s",
                 w0.rows() > kHeadLinesMaxTokens || w0.cols() > kHeadLinesMaxTokens
                     ? " Shown for the first 64 tokens."
                     : "",
                 every_head ? "" : " This run is too long to keep every head's weights: only the shown head's lines are drawn.");
    // The legend: which colour is which head.
    for (size_t h = 0; h < heads.size(); ++h) {
        if (h > 0) ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kHeadColours[h % 8]), "■ %s",
                           head_name(run, static_cast<int>(h)).c_str());
    }

    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    const float label_w = 160.0f * ctx.ui_scale, gap = 260.0f * ctx.ui_scale;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float height = line_h * static_cast<float>(std::max(rows, cols));
    ImGui::Dummy(ImVec2(label_w * 2.0f + gap, height));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float left_x = origin.x + label_w, right_x = left_x + gap;
    const auto row_y = [&](int i) { return origin.y + line_h * (static_cast<float>(i) + 0.5f); };
    widgets.set("head_view_lines", {left_x + 6.0f, origin.y, right_x - 6.0f, origin.y + height});

    // Which token the mouse is on: a query row on the left or a key row on the right.
    const ImVec2 m = ImGui::GetMousePos();
    int hot_query = -1, hot_key = -1;
    if (ImGui::IsWindowHovered() && m.y >= origin.y && m.y < origin.y + height) {
        const int i = static_cast<int>((m.y - origin.y) / line_h);
        if (m.x >= origin.x && m.x < left_x && i < rows) hot_query = i;
        if (m.x >= right_x && m.x < right_x + label_w && i < cols) hot_key = i;
    }
    const float thickness = 3.5f * ctx.ui_scale;  // visible from the back of a room
    for (size_t h = 0; h < heads.size(); ++h) {
        const attn::Stage* w = heads[h].find("weights");
        if (!w) continue;
        // Each head's lines sit a little apart within the token's row: drawn on the
        // same points, the heads' colours would blend into one grey.
        const float spread = heads.size() > 1 ? line_h * 0.6f : 0.0f;
        const float dy = spread * ((static_cast<float>(h) + 0.5f) / static_cast<float>(heads.size()) - 0.5f);
        for (int q = 0; q < rows; ++q) {
            if (hot_query >= 0 && q != hot_query) continue;
            for (int k = 0; k < cols; ++k) {
                if (hot_key >= 0 && k != hot_key) continue;
                const float v = w->value(q, k);
                if (!(v > 0.01f)) continue;  // invisible anyway; skips masked cells
                dl->AddLine(ImVec2(left_x + 6.0f, row_y(q) + dy), ImVec2(right_x - 6.0f, row_y(k) + dy),
                            with_alpha(kHeadColours[h % 8], v), thickness);
            }
        }
    }
    const ImU32 normal = IM_COL32(0, 0, 0, 255), hot = ui_color32(ui_colors().hot_label);
    for (int q = 0; q < rows; ++q) {
        const std::string& s = queries[static_cast<size_t>(q)];
        const float tw = ImGui::CalcTextSize(s.c_str()).x;
        dl->AddText(ImVec2(left_x - tw, row_y(q) - line_h * 0.4f), q == hot_query ? hot : normal, s.c_str());
    }
    for (int k = 0; k < cols; ++k)
        dl->AddText(ImVec2(right_x, row_y(k) - line_h * 0.4f), k == hot_key ? hot : normal,
                    keys[static_cast<size_t>(k)].c_str());
}

}  // namespace app
