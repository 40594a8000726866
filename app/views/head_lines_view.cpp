#include "views/head_lines_view.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "graphics/ui_colors.h"
#include "run/model_run.h"
#include "views/head_thumbnails.h"
#include "views/stage_labels.h"
#include "views/wrapping.h"

namespace app {

namespace {

const ImU32 kHeadColours[] = {IM_COL32(0, 114, 178, 255),   IM_COL32(230, 159, 0, 255),
                              IM_COL32(0, 158, 115, 255),   IM_COL32(204, 121, 167, 255),
                              IM_COL32(86, 180, 233, 255),  IM_COL32(213, 94, 0, 255),
                              IM_COL32(240, 228, 66, 255),  IM_COL32(0, 0, 0, 255)};

// More heads than this drawn at once blur into one another: a run with more starts with
// the shown head alone.
constexpr size_t kAllHeadsAtFirst = 4;

int layer_count(const attn::Run& run) {
    return run.model && run.model->trace ? static_cast<int>(run.model->trace->blocks.size()) : 1;
}

// A head's name in the view's layer: "head 1.6" for a model, "head 2" for a module.
std::string head_label(const attn::Run& run, int layer, int head) {
    if (!run.model) return head_name(run, head);
    return "head " + attn::layer_head(layer, head);
}

}  // namespace

ImU32 head_colour(int head) { return kHeadColours[static_cast<size_t>(head) % 8]; }

ImU32 with_alpha(ImU32 colour, float alpha) {
    const auto a = static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f + 0.5f);
    return (colour & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

const attn::Trace& layer_trace(const attn::Run& run, int layer) {
    if (run.model && run.model->trace && layer >= 0 && layer < layer_count(run))
        return run.model->trace->blocks[static_cast<size_t>(layer)].attention;
    return run.trace;
}

void HeadView::draw(const attn::Run& run, int shown_head, const DrawContext& ctx, FrameReport& report) {
    const int layers = layer_count(run);
    if (!run.model) layer_ = -1;
    else if (layer_ < 0 || layer_ >= layers) layer_ = std::max(run.model->layer, 0);
    const size_t heads = layer_trace(run, layer_).heads.size();
    if (on_.size() != heads) {  // a new run's heads: all, or the shown head alone when many
        on_.assign(heads, heads <= kAllHeadsAtFirst);
        if (heads > kAllHeadsAtFirst) on_[static_cast<size_t>(std::clamp(shown_head, 0, static_cast<int>(heads) - 1))] = true;
    }
    HeadViewReport& r = report.head_view;
    r.shown = true;
    r.layers = run.model ? layers : 1;
    draw_controls(run, layers, ctx, report);
    r.layer = layer_;
    r.model_view = model_view_;
    r.heads = on_;
    if (!model_view_) return draw_lines(run, ctx, report);
    ThumbnailLayers all;
    for (int l = 0; l < layers; ++l) all.push_back(&layer_trace(run, run.model ? l : -1));
    if (const std::optional<std::pair<int, int>> opened = draw_head_thumbnails(run, all, ctx, report.widgets)) {
        layer_ = run.model ? opened->first : -1;
        const size_t n = layer_trace(run, layer_).heads.size();
        on_.assign(n, false);
        if (static_cast<size_t>(opened->second) < n) on_[static_cast<size_t>(opened->second)] = true;
        model_view_ = false;
    }
}

void HeadView::draw_controls(const attn::Run& run, int layers, const DrawContext& ctx, FrameReport& report) {
    WidgetRects& widgets = report.widgets;
    if (run.model) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted("Layer");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("layer 000").x + ImGui::GetFrameHeight() * 2.0f);
        const std::string current = "layer " + std::to_string(layer_);
        ImGui::BeginDisabled(model_view_);
        if (ImGui::BeginCombo("##head_view_layer", current.c_str())) {
            for (int l = 0; l < layers; ++l) {
                const std::string name = "layer " + std::to_string(l);
                if (ImGui::Selectable(name.c_str(), l == layer_)) layer_ = l;
                widgets.record("head_view_layer_" + std::to_string(l));
            }
            ImGui::EndCombo();
        }
        ImGui::EndDisabled();
        widgets.record("head_view_layer");
        ImGui::SameLine();
    }
    if (ImGui::Button(model_view_ ? "Back to one layer" : (run.model ? "Every layer x head" : "Every head")))
        model_view_ = !model_view_;
    widgets.record("head_view_model_view");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(model_view_ ? "the lines of the chosen heads, with the tokens"
                                      : "BertViz's model view: every head's lines as a thumbnail; a click opens one");
    if (model_view_) return;

    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Heads");
    ImGui::SameLine();
    if (ImGui::Button("All")) std::fill(on_.begin(), on_.end(), true);
    widgets.record("head_view_all");
    ImGui::SameLine();
    if (ImGui::Button("None")) std::fill(on_.begin(), on_.end(), false);
    widgets.record("head_view_none");
    // One toggle per head, its colour a square (filled: on): a click switches it, a right
    // click or a double click shows it alone.
    const float gap = ImGui::GetStyle().ItemSpacing.x, box = ImGui::GetFontSize() * 0.8f;
    for (size_t h = 0; h < on_.size(); ++h) {
        const std::string name = head_label(run, layer_, static_cast<int>(h));
        const std::string label = name.substr(5);  // "1.6" of "head 1.6"
        const float w = ImGui::CalcTextSize(label.c_str()).x + box + gap + ImGui::GetStyle().FramePadding.x * 2.0f;
        if (ImGui::GetItemRectMax().x + gap + w < ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
            ImGui::SameLine();
        ImGui::PushID(static_cast<int>(h));
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::PushStyleVar(ImGuiStyleVar_ButtonTextAlign, ImVec2(1.0f, 0.5f));
        if (ImGui::Button(label.c_str(), ImVec2(w, 0.0f))) on_[h] = !on_[h];
        ImGui::PopStyleVar();
        const ImVec2 a(at.x + ImGui::GetStyle().FramePadding.x, at.y + (ImGui::GetFrameHeight() - box) * 0.5f);
        const ImVec2 b(a.x + box, a.y + box);
        ImDrawList* dl = ImGui::GetWindowDrawList();
        if (on_[h]) dl->AddRectFilled(a, b, head_colour(static_cast<int>(h)));
        else dl->AddRect(a, b, head_colour(static_cast<int>(h)), 0.0f, 0, std::max(1.0f, 2.0f * ctx.ui_scale));
        if (ImGui::IsItemHovered() &&
            (ImGui::IsMouseClicked(ImGuiMouseButton_Right) || ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))) {
            std::fill(on_.begin(), on_.end(), false);
            on_[h] = true;
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s: a click switches its lines %s; a right click (or a double click) shows it alone",
                              name.c_str(), on_[h] ? "off" : "on");
        widgets.record("head_view_head_" + std::to_string(h));
        ImGui::PopID();
    }
}

void HeadView::draw_lines(const attn::Run& run, const DrawContext& ctx, FrameReport& report) {
    const attn::Trace& trace = layer_trace(run, layer_);
    const auto& heads = trace.heads;
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
    const long shown = std::count(on_.begin(), on_.end(), true);

    text_wrapped("Each line joins a query (left) to a key (right); its opacity is the weight, its colour the head. "
                 "Hover a token to see only its lines.%s%s%s",
                 w0.rows() > kHeadLinesMaxTokens || w0.cols() > kHeadLinesMaxTokens
                     ? " Shown for the first 64 tokens."
                     : "",
                 every_head ? "" : " This run is too long to keep every head's weights: only the shown head's lines are drawn.",
                 shown == 0 ? " No head is switched on: click one above, or All." : "");

    // Rows as tall as the view allows, up to twice a line: lines between few tokens spread out.
    const float text_h = ImGui::GetTextLineHeightWithSpacing();
    const float line_h = std::clamp(ImGui::GetContentRegionAvail().y / static_cast<float>(std::max({rows, cols, 1})),
                                    text_h, 2.0f * text_h);
    const float label_w = 160.0f * ctx.ui_scale;
    // The band between the tokens takes the width the view has, within reason.
    const float gap = std::clamp(ImGui::GetContentRegionAvail().x - 2.0f * label_w, 260.0f * ctx.ui_scale,
                                 520.0f * ctx.ui_scale);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float height = line_h * static_cast<float>(std::max(rows, cols));
    ImGui::Dummy(ImVec2(label_w * 2.0f + gap, height));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float left_x = origin.x + label_w, right_x = left_x + gap;
    const auto row_y = [&](int i) { return origin.y + line_h * (static_cast<float>(i) + 0.5f); };
    WidgetRects& widgets = report.widgets;
    widgets.set("head_view_lines", {left_x + 6.0f, origin.y, right_x - 6.0f, origin.y + height});

    // Which token the mouse is on: a query row on the left or a key row on the right.
    const ImVec2 m = ImGui::GetMousePos();
    int hot_query = -1, hot_key = -1;
    if (ImGui::IsWindowHovered() && m.y >= origin.y && m.y < origin.y + height) {
        const int i = static_cast<int>((m.y - origin.y) / line_h);
        if (m.x >= origin.x && m.x < left_x && i < rows) hot_query = i;
        if (m.x >= right_x && m.x < right_x + label_w && i < cols) hot_key = i;
    }
    HeadViewReport& r = report.head_view;
    r.hovered_query = hot_query;
    r.hovered_key = hot_key;
    std::set<int> line_heads, line_queries, line_keys;
    const float thickness = 3.5f * ctx.ui_scale;  // visible from the back of a room
    // Each head shown sits a little apart within the token's row: drawn on the same
    // points, the heads' colours would blend into one grey.
    const float spread = shown > 1 ? text_h * 0.6f : 0.0f;
    long slot = 0;
    for (size_t h = 0; h < heads.size(); ++h) {
        const attn::Stage* w = heads[h].find("weights");
        if (!w || h >= on_.size() || !on_[h]) continue;
        const float dy = shown > 1 ? spread * ((static_cast<float>(slot++) + 0.5f) / static_cast<float>(shown) - 0.5f) : 0.0f;
        for (int q = 0; q < rows; ++q) {
            if (hot_query >= 0 && q != hot_query) continue;
            for (int k = 0; k < cols; ++k) {
                if (hot_key >= 0 && k != hot_key) continue;
                const float v = w->value(q, k);
                if (!(v > 0.01f)) continue;  // invisible anyway; skips masked cells
                dl->AddLine(ImVec2(left_x + 6.0f, row_y(q) + dy), ImVec2(right_x - 6.0f, row_y(k) + dy),
                            with_alpha(head_colour(static_cast<int>(h)), v), thickness);
                ++r.lines;
                line_heads.insert(static_cast<int>(h));
                line_queries.insert(q);
                line_keys.insert(k);
            }
        }
    }
    r.line_heads.assign(line_heads.begin(), line_heads.end());
    r.line_queries.assign(line_queries.begin(), line_queries.end());
    r.line_keys.assign(line_keys.begin(), line_keys.end());
    const ImU32 normal = IM_COL32(0, 0, 0, 255), hot = ui_color32(ui_colors().hot_label);
    for (int q = 0; q < rows; ++q) {
        const std::string& s = queries[static_cast<size_t>(q)];
        const float tw = ImGui::CalcTextSize(s.c_str()).x;
        dl->AddText(ImVec2(left_x - tw, row_y(q) - text_h * 0.4f), q == hot_query ? hot : normal, s.c_str());
        widgets.set("head_view_query_" + std::to_string(q),
                    {left_x - tw, row_y(q) - line_h * 0.5f, left_x, row_y(q) + line_h * 0.5f});
    }
    for (int k = 0; k < cols; ++k) {
        const std::string& s = keys[static_cast<size_t>(k)];
        dl->AddText(ImVec2(right_x, row_y(k) - text_h * 0.4f), k == hot_key ? hot : normal, s.c_str());
        widgets.set("head_view_key_" + std::to_string(k), {right_x, row_y(k) - line_h * 0.5f,
                                                            right_x + ImGui::CalcTextSize(s.c_str()).x,
                                                            row_y(k) + line_h * 0.5f});
    }
}

}  // namespace app
