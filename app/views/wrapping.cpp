#include "views/wrapping.h"

#include <cstdarg>

#include "imgui_internal.h"

namespace app {

namespace {

void wrapped_v(const char* fmt, va_list args) {
    ImGui::PushTextWrapPos(visible_right());
    ImGui::TextV(fmt, args);
    ImGui::PopTextWrapPos();
}

}  // namespace

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
