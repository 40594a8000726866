#include "views/wrapping.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "imgui_internal.h"

namespace app {

namespace {

void wrapped_v(const char* fmt, va_list args) {
    va_list copy;
    va_copy(copy, args);
    const int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    if (n < 0) return;
    std::string text(static_cast<size_t>(n) + 1, '\0');
    std::vsnprintf(text.data(), text.size(), fmt, args);
    text.resize(static_cast<size_t>(n));
    text_wrapped_at(text, visible_right());
}

}  // namespace

std::vector<std::string> wrap_lines(const std::string& text, float width) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t nl = text.find('\n', start);
        const std::string para = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        // Greedy over words split at spaces only: a word longer than the width stays whole
        // (Dear ImGui's own wrapping also breaks after '.' and ',', inside numbers).
        std::string line;
        size_t i = 0;
        bool any = false;
        while (i <= para.size()) {
            size_t j = para.find(' ', i);
            if (j == std::string::npos) j = para.size();
            const std::string word = para.substr(i, j - i);
            const std::string joined = line.empty() && !any ? word : line + " " + word;
            if (any && ImGui::CalcTextSize(joined.c_str()).x > width) {
                lines.push_back(line);
                line = word;
            } else {
                line = joined;
            }
            any = true;
            i = j + 1;
        }
        lines.push_back(line);
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    return lines;
}

void text_wrapped_at(const std::string& text, float wrap_x) {
    const float width = std::max(wrap_x - ImGui::GetCursorPosX(), 1.0f);
    ImGui::PushTextWrapPos(-1.0f);  // the lines are already broken
    ImGui::BeginGroup();
    for (const std::string& line : wrap_lines(text, width)) ImGui::TextUnformatted(line.c_str());
    ImGui::EndGroup();
    ImGui::PopTextWrapPos();
}

float visible_right() {
    const ImGuiWindow* w = ImGui::GetCurrentWindow();
    // InnerRect excludes the borders and scroll bars; local = screen - Pos + Scroll.
    const float right = w->InnerRect.Max.x - ImGui::GetStyle().WindowPadding.x - w->Pos.x + w->Scroll.x;
    return ImMax(right, ImGui::GetCursorPosX() + 1.0f);
}

void text_wrapped(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    wrapped_v(fmt, args);
    va_end(args);
}

void text_wrapped_disabled(const char* fmt, ...) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    va_list args;
    va_start(args, fmt);
    wrapped_v(fmt, args);
    va_end(args);
    ImGui::PopStyleColor();
}

void text_wrapped_colored(const ImVec4& color, const char* fmt, ...) {
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    va_list args;
    va_start(args, fmt);
    wrapped_v(fmt, args);
    va_end(args);
    ImGui::PopStyleColor();
}

void same_line_if_fits(float width) {
    const float after = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + ImGui::GetScrollX() +
                        ImGui::GetStyle().ItemSpacing.x;
    if (after + width <= visible_right()) ImGui::SameLine();
}

float radio_width(const char* label) {
    return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

}  // namespace app
