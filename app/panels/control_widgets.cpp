#include "panels/control_widgets.h"

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

void caption(const char* text) { ImGui::TextUnformatted(text); }

bool slider_int(const char* label, const char* name, int& v, int lo, int hi, WidgetRects& rects,
                ImGuiSliderFlags flags, const char* format) {
    caption(label);
    ImGui::SetNextItemWidth(-1.0f);
    const bool changed = ImGui::SliderInt((std::string("##") + name).c_str(), &v, lo, hi, format, flags);
    rects.record(name);
    return changed;
}

bool checkbox(const char* label, const char* name, bool& v, WidgetRects& rects) {
    const bool changed = ImGui::Checkbox(label, &v);
    rects.record(name);
    return changed;
}

}  // namespace app
