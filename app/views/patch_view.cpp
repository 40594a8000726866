#include "views/patch_view.h"

#include <exception>

#include "graphics/ui_colors.h"
#include "views/control_widgets.h"
#include "views/wrapping.h"

namespace app {

PatchCount patch_token_count(const attn::ModelRun& m, const std::string& text, bool ids) {
    // Typing re-reads it each frame: the last text's count is kept, per model.
    static std::string last_text, last_model;
    static bool last_ids = false;
    static PatchCount last;
    const std::string& model = m.model.name;
    if (text == last_text && model == last_model && ids == last_ids) return last;
    attn::Settings s;
    s.model = model;
    if (ids) s.ids = text;
    else s.text = text;
    try {
        last = {static_cast<long long>(attn::model_input_tokens(s, m.model).ids.size()), ""};
    } catch (const std::exception& e) {
        last = {-1, e.what()};
    }
    last_text = text;
    last_model = model;
    last_ids = ids;
    return last;
}

PatchChoice draw_patch_box(const attn::ModelRun& m, const std::optional<std::string>& patch_from, bool patching,
                           bool ids, WidgetRects& widgets) {
    PatchChoice choice;
    caption("Patch heads from another text (as many tokens): right-click a head, or press P over it");
    std::string text = patch_from.value_or("");
    ImGui::SetNextItemWidth(-1.0f);
    if (input_text("##patch_from", text, ids ? "token ids, as the text's: 5,17,3" : "e.g. the same sentence with one name changed")) choice.patch_from = text;
    widgets.record("patch_from");
    const long long tokens = static_cast<long long>(m.tokens.ids.size());
    if (!text.empty()) {
        const PatchCount read = patch_token_count(m, text, ids);
        const long long count = read.tokens;
        if (count < 0)
            ImGui::TextColored(ui_color(ui_colors().error), "%s", read.error.c_str());
        else if (count != tokens)
            ImGui::TextColored(ui_color(ui_colors().error), "%lld tokens; the text has %lld: a patch needs as many", count,
                               tokens);
        else
            ImGui::TextDisabled("%lld tokens, as many as the text", count);
        widgets.record("patch_tokens");
    }
    if (m.patched.empty() && !patching) return choice;
    std::string heads;
    for (const attn::HeadSite& h : m.patched) heads += (heads.empty() ? "" : ", ") + attn::layer_head(h);
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(ui_color(ui_colors().lesson_frame), "Patched from the other text: %s", heads.empty() ? "..." : heads.c_str());
    widgets.record("patched");
    ImGui::SameLine();
    if (ImGui::Button("Stop patching")) choice.stop = true;
    widgets.record("stop_patching");
    if (!m.patched.empty())
        text_wrapped_disabled("Each patched head's output at every position is the other text's; every later layer reads "
                              "it. The bars are the patched run; in brackets the run without the patch.");
    return choice;
}

}  // namespace app
