#include "views/control_widgets.h"

#include "views/wrapping.h"

namespace app {

namespace {

int resize_string(ImGuiInputTextCallbackData* data) {
    if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
        auto* s = static_cast<std::string*>(data->UserData);
        s->resize(static_cast<size_t>(data->BufTextLen));
        data->Buf = s->data();
    }
    return 0;
}

}  // namespace

bool input_text(const char* id, std::string& s, const char* hint, ImGuiInputTextFlags flags) {
    return ImGui::InputTextWithHint(id, hint, s.data(), s.capacity() + 1, flags | ImGuiInputTextFlags_CallbackResize,
                                    resize_string, &s);
}

void caption(const char* text) { text_wrapped("%s", text); }

bool slider_int(const char* label, const char* name, int& v, int lo, int hi, WidgetRects& rects,
                ImGuiSliderFlags flags, const char* format) {
    caption(label);
    ImGui::SetNextItemWidth(-1.0f);
    const bool changed = ImGui::SliderInt((std::string("##") + name).c_str(), &v, lo, hi, format, flags);
    rects.record(name);
    return changed;
}

bool checkbox(const char* label, const char* name, bool& v, WidgetRects& rects) {
    // The box, then its label as text that wraps (ImGui's own label is cut at the
    // panel's edge at a large UI scale); a click on the label toggles it too.
    bool changed = ImGui::Checkbox((std::string("##") + name).c_str(), &v);
    rects.record(name);
    ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::BeginGroup();
    text_wrapped("%s", label);
    ImGui::EndGroup();
    if (ImGui::IsItemClicked()) {  // false when disabled
        v = !v;
        changed = true;
    }
    return changed;
}

}  // namespace app
