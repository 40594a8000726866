#include "views/head_thumbnails.h"

#include <algorithm>
#include <string>

#include "run/model_run.h"
#include "views/head_lines_view.h"
#include "views/stage_labels.h"
#include "views/wrapping.h"

namespace app {

namespace {

// Thumbnails draw fewer tokens than the head view: T² lines each, layers x heads of them.
constexpr int kThumbnailMaxTokens = 32;

// One head's lines in the box [a, b]: query q on the left edge at q's height, key k on the right.
long draw_thumbnail_lines(ImDrawList* dl, const attn::Matrix& w, int head, ImVec2 a, ImVec2 b, float thickness) {
    const int rows = std::min(static_cast<int>(w.rows()), kThumbnailMaxTokens);
    const int cols = std::min(static_cast<int>(w.cols()), kThumbnailMaxTokens);
    const float step = (b.y - a.y) / static_cast<float>(std::max({rows, cols, 1}));
    long lines = 0;
    for (int q = 0; q < rows; ++q)
        for (int k = 0; k < cols; ++k) {
            const float v = w(q, k);
            if (!(v > 0.05f)) continue;  // faint lines only grey a thumbnail
            dl->AddLine(ImVec2(a.x, a.y + step * (static_cast<float>(q) + 0.5f)),
                        ImVec2(b.x, a.y + step * (static_cast<float>(k) + 0.5f)), with_alpha(head_colour(head), v),
                        thickness);
            ++lines;
        }
    return lines;
}

}  // namespace

std::optional<std::pair<int, int>> draw_head_thumbnails(const attn::Run& run, const ThumbnailLayers& layers,
                                                        const DrawContext& ctx, WidgetRects& widgets) {
    const int heads = layers.empty() ? 0 : static_cast<int>(layers.front()->heads.size());
    const attn::Stage* w0 =
        layers.empty() || layers.front()->heads.empty() ? nullptr : layers.front()->heads.front().find("weights");
    text_wrapped("Every %s as its lines (queries on the left edge, keys on the right; opacity is the weight)%s: "
                 "click one to open it.",
                 run.model ? "layer and head" : "head",
                 w0 && w0->value.rows() > kThumbnailMaxTokens ? ", for the first 32 tokens" : "");
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float label_w = run.model ? ImGui::CalcTextSize("layer 00").x + gap : 0.0f;
    const float avail = ImGui::GetContentRegionAvail().x - label_w;
    const float side = std::clamp((avail - gap * static_cast<float>(heads)) / static_cast<float>(std::max(heads, 1)),
                                  36.0f * ctx.ui_scale, 140.0f * ctx.ui_scale);
    const float caption_h = ImGui::GetFontSize();
    std::optional<std::pair<int, int>> clicked;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (size_t l = 0; l < layers.size(); ++l) {
        const int layer = static_cast<int>(l);
        if (run.model) {
            ImGui::AlignTextToFramePadding();
            ImGui::Text("layer %d", layer);
            ImGui::SameLine(label_w);
        }
        float x = 0.0f;
        for (int h = 0; h < heads; ++h) {
            if (h > 0 && x + side + gap <= avail) ImGui::SameLine(0.0f, gap);
            else if (h > 0) {
                ImGui::NewLine();
                if (run.model) ImGui::SameLine(label_w);
                x = 0.0f;
            }
            x += side + gap;
            const std::string name = run.model ? attn::layer_head(layer, h) : std::to_string(h + 1);
            ImGui::PushID(layer * 1000 + h);
            const ImVec2 at = ImGui::GetCursorScreenPos();
            if (ImGui::InvisibleButton("thumb", ImVec2(side, side + caption_h))) clicked = std::make_pair(layer, h);
            const bool hovered = ImGui::IsItemHovered();
            widgets.record("head_thumb/" + name);
            ImGui::PopID();
            if (!ImGui::IsItemVisible()) continue;
            ImGui::PushFont(ctx.fonts.small);
            dl->AddText(at, IM_COL32(0, 0, 0, 255), (run.model ? name : "head " + name).c_str());
            ImGui::PopFont();
            const ImVec2 a(at.x, at.y + caption_h), b(at.x + side, at.y + caption_h + side);
            dl->AddRectFilled(a, b, IM_COL32(255, 255, 255, 255));
            dl->AddRect(a, b, hovered ? IM_COL32(0, 0, 0, 255) : IM_COL32(170, 170, 170, 255), 0.0f, 0,
                        hovered ? 2.0f * ctx.ui_scale : 1.0f);
            if (const attn::Stage* w = layers[l]->heads[static_cast<size_t>(h)].find("weights"))
                draw_thumbnail_lines(dl, w->value, h, ImVec2(a.x + 3.0f, a.y + 2.0f), ImVec2(b.x - 3.0f, b.y - 2.0f),
                                     std::max(1.0f, side / 60.0f));
            if (hovered) ImGui::SetTooltip("head %s: a click opens its lines with the tokens", name.c_str());
        }
    }
    return clicked;
}

}  // namespace app
