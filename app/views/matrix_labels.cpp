#include "views/matrix_labels.h"

#include <algorithm>
#include <set>

#include "graphics/ui_colors.h"

namespace app {

namespace {

constexpr const char* kNoteLong = "too many tokens to label: hover a cell for its row and column";
constexpr const char* kNoteShort = "hover for tokens";

float widest(const std::vector<std::string>& labels) {
    float w = 0.0f;
    for (const std::string& s : labels) w = std::max(w, ImGui::CalcTextSize(s.c_str()).x);
    return w;
}

// The rows and columns drawn whole and emphasised: the pointer's and the lesson's.
struct Hot {
    std::set<int> rows, cols;
};
Hot hot_of(const LabelPlace& at) {
    Hot h;
    if (at.hot_row >= 0) h.rows.insert(at.hot_row);
    if (at.hot_col >= 0) h.cols.insert(at.hot_col);
    if (at.marks) {
        for (int r : at.marks->rows) h.rows.insert(r);
        for (const auto& [r, c] : at.marks->cells) {
            h.rows.insert(r);
            h.cols.insert(c);
        }
    }
    if (at.label_marks) {  // another heatmap's rows, labelled here
        for (int r : at.label_marks->rows) h.rows.insert(r);
        for (const auto& [r, c] : at.label_marks->cells) h.rows.insert(r);
    }
    return h;
}

// An emphasised label stands on a pale box, so that drawn whole over its neighbours it
// still reads.
void emphasis_box(ImDrawList* dl, const Rect& r) {
    dl->AddRectFilled(ImVec2(r[0] - 2.0f, r[1] - 1.0f), ImVec2(r[2] + 2.0f, r[3] + 1.0f), IM_COL32(255, 246, 200, 255),
                      2.0f);
}

void draw_rows(const LabelPlace& at, const Hot& hot, ImDrawList* dl, AxisLabelsInfo& out) {
    const std::vector<std::string>& labels = *at.rows;
    const float line = ImGui::GetTextLineHeight();
    const ImU32 normal = IM_COL32(0, 0, 0, 255), hot_col = ui_color32(ui_colors().hot_label);
    for (size_t r = 0; r < labels.size(); ++r) {
        LabelInfo info;
        info.text = labels[r];
        info.full_px = ImGui::CalcTextSize(info.text.c_str()).x;
        info.emphasised = hot.rows.count(static_cast<int>(r)) > 0;
        const std::string shown = info.emphasised ? info.text : fit_text(info.text, at.row_plan.cap);
        info.as = shown == info.text ? "whole" : "shortened";
        const float w = ImGui::CalcTextSize(shown.c_str()).x;
        const float x = at.heat_min.x - at.gap - w;
        const float y = at.heat_min.y + at.cell.y * (static_cast<float>(r) + 0.5f) - line * 0.5f;
        info.rect = {x, y, x + w, y + line};
        if (info.emphasised) emphasis_box(dl, info.rect);
        dl->AddText(ImVec2(x, y), info.emphasised ? hot_col : normal, shown.c_str());
        out.labels.push_back(std::move(info));
    }
}

void draw_cols(const LabelPlace& at, const Hot& hot, ImDrawList* dl, AxisLabelsInfo& out) {
    const std::vector<std::string>& labels = *at.cols;
    const float line = ImGui::GetTextLineHeight();
    const ImU32 normal = IM_COL32(0, 0, 0, 255), hot_col = ui_color32(ui_colors().hot_label);
    for (size_t c = 0; c < labels.size(); ++c) {
        LabelInfo info;
        info.text = labels[c];
        info.full_px = ImGui::CalcTextSize(info.text.c_str()).x;
        info.emphasised = hot.cols.count(static_cast<int>(c)) > 0;
        // A turned label longer than the room is drawn in smaller type, down to
        // kMinLabelScale, before it is cut.
        float type = 1.0f;
        if (at.col_plan.turned && !info.emphasised && info.full_px > at.col_plan.cap)
            // A pixel under the room: Dear ImGui rounds a text's width up to a whole
            // pixel, and at exactly the room fit_text cut 'Congress' by one character.
            type = std::max((at.col_plan.cap - 1.0f) / info.full_px, kMinLabelScale);
        ImGui::SetWindowFontScale(type);
        const std::string shown = info.emphasised ? info.text : fit_text(info.text, at.col_plan.cap);
        const ImU32 col = info.emphasised ? hot_col : normal;
        const float centre = at.heat_min.x + at.cell.x * (static_cast<float>(c) + 0.5f);
        if (at.col_plan.turned) {
            info.as = shown == info.text ? "turned" : "shortened";
            const ImVec2 start(centre, at.heat_min.y - at.gap);
            if (info.emphasised) {
                const float w = ImGui::CalcTextSize(shown.c_str()).x;
                emphasis_box(dl, {centre - line * 0.5f, start.y - w, centre + line * 0.5f, start.y});
            }
            info.rect = add_text_turned(dl, start, col, shown.c_str());
        } else {
            info.as = "whole";
            const float w = ImGui::CalcTextSize(shown.c_str()).x;
            const float y = at.heat_min.y - line - 2.0f;
            info.rect = {centre - w * 0.5f, y, centre + w * 0.5f, y + line};
            if (info.emphasised) emphasis_box(dl, info.rect);
            dl->AddText(ImVec2(info.rect[0], y), col, shown.c_str());
        }
        ImGui::SetWindowFontScale(1.0f);
        info.type = type;
        out.labels.push_back(std::move(info));
    }
}

}  // namespace

float label_cap(float across, float ui_scale) {
    // The labels take at most a quarter of what the matrix occupies with them (a third
    // of its side: a short matrix keeps its height for cells), and never less than
    // kMinLabelEms font sizes nor more than kLabelEms.
    (void)ui_scale;
    return std::max(kMinLabelEms * ImGui::GetFontSize(), std::min(kLabelEms * ImGui::GetFontSize(), across / 3.0f));
}

AxisPlan plan_row_labels(const std::vector<std::string>* labels, float cell_h, float heat_w, float ui_scale) {
    AxisPlan p;
    if (!labels || labels->empty() || cell_h < ImGui::GetTextLineHeight() * 0.9f) return p;
    p.shown = true;
    // Rows keep at least the room they always had: a narrow matrix (3 columns of the
    // book's embedding) still names its tokens whole down its side.
    p.cap = std::max(kRowLabelPx * ui_scale, label_cap(heat_w, ui_scale));
    p.band = std::min(widest(*labels), p.cap) + 6.0f * ui_scale;
    return p;
}

AxisPlan plan_col_labels(const std::vector<std::string>* labels, float cell_w, float heat_w, float heat_h,
                         float ui_scale) {
    AxisPlan p;
    if (!labels || labels->empty()) return p;
    const float line = ImGui::GetTextLineHeight();
    const float w = widest(*labels);
    if (w <= cell_w - 2.0f) {  // every label fits its cell lying flat
        p.shown = true;
        p.cap = cell_w - 2.0f;
        p.band = line + 2.0f;
    } else if (cell_w >= line * 0.9f) {  // turned, a line of text fits the cell's width
        p.shown = p.turned = true;
        p.cap = label_cap(heat_h, ui_scale);
        p.band = std::min(w, p.cap) + 6.0f * ui_scale;
    } else if (heat_w >= ImGui::CalcTextSize(kNoteShort).x) {
        p.note = true;
        p.band = line + 2.0f;
    }
    return p;
}

std::string fit_text(const std::string& text, float width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
    std::string cut = text;
    while (!cut.empty()) {
        // Drop the last whole UTF-8 character: its continuation bytes (10xxxxxx), then its
        // lead byte. (Leaving the lead byte drew "?" for GPT-2's "␣Congress", cut in "␣".)
        while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back();
        if (!cut.empty()) cut.pop_back();
        const std::string shown = cut + "…";
        if (ImGui::CalcTextSize(shown.c_str()).x <= width) return shown;
    }
    return "";
}

Rect add_text_turned(ImDrawList* dl, ImVec2 start, ImU32 col, const char* text) {
    // Dear ImGui 1.86 has no turned text: draw it flat, then turn the vertices it added.
    // Flat at the clip rectangle's corner, as Dear ImGui skips glyphs outside that
    // rectangle; turned, the draw call's scissor clips them as any other.
    const ImVec2 size = ImGui::CalcTextSize(text);
    const ImVec2 at = dl->GetClipRectMin();
    const int first = dl->VtxBuffer.Size;
    dl->AddText(at, col, text);
    const float mid = at.y + size.y * 0.5f;  // the line's centre, which lands on start.x
    for (int i = first; i < dl->VtxBuffer.Size; ++i) {
        ImVec2& p = dl->VtxBuffer[i].pos;
        const float along = p.x - at.x, across = p.y - mid;
        // 90° counter-clockwise on screen: along the text goes up, a glyph's top goes left.
        p = ImVec2(start.x + across, start.y - along);
    }
    return {start.x - size.y * 0.5f, start.y - size.x, start.x + size.y * 0.5f, start.y};
}

void draw_axis_labels(const LabelPlace& at, ImDrawList* dl, AxisLabelsInfo& rows, AxisLabelsInfo& cols) {
    const Hot hot = hot_of(at);
    rows = AxisLabelsInfo{};
    cols = AxisLabelsInfo{};
    rows.present = at.rows && !at.rows->empty();
    cols.present = at.cols && !at.cols->empty();
    if (at.row_plan.shown) {
        rows.room = at.row_plan.cap;
        draw_rows(at, hot, dl, rows);
    } else if (rows.present) {
        rows.hidden = static_cast<int>(at.rows->size());
    }
    if (at.col_plan.shown) {
        cols.turned = at.col_plan.turned;
        cols.room = at.col_plan.cap;
        draw_cols(at, hot, dl, cols);
        return;
    }
    if (!cols.present) return;
    cols.hidden = static_cast<int>(at.cols->size());
    if (!at.col_plan.note) return;
    cols.note = true;
    const float heat_w = at.cell.x * static_cast<float>(at.cols->size());
    const char* note = ImGui::CalcTextSize(kNoteLong).x <= heat_w ? kNoteLong : kNoteShort;
    dl->AddText(ImVec2(at.heat_min.x, at.heat_min.y - ImGui::GetTextLineHeight() - 2.0f),
                ImGui::GetColorU32(ImGuiCol_TextDisabled), note);
}

}  // namespace app
