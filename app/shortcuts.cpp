#include "shortcuts.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "graphics/gl.h"
#include <GLFW/glfw3.h>

#include "imgui_internal.h"  // the widget holding the keys now (see keys_go_to_a_text_field)
#include "numerics/machine.h"
#include "state/lesson_player.h"

namespace app {

namespace {

const std::pair<const char*, const char*> kShortcuts[] = {
    {"→ / ←", "next / previous lesson step"},
    {"H / Shift+H", "one head more / fewer"},
    {"D / Shift+D", "dropout + / − 0.1"},
    {"R", "reseed (seed + 1)"},
    {"X over a model's head", "switch the head off / back on"},
    {"F", "focus: one stage full window, or the whole pipeline"},
    {"→ / ← in focus", "next / previous stage (outside a lesson)"},
    {"F5", "presenter mode on / off (it focuses)"},
    {"Ctrl+S / Ctrl+O", "save / open a session"},
    {"Ctrl+M", "open a model (GPT-2 .safetensors)"},
    {"?", "this list (Esc closes it)"},
    {"Ctrl+Q", "quit"},
};

// Pressed this frame; a held key counts once (tests hold keys for a few frames).
bool pressed(int key) { return ImGui::IsKeyPressed(key, false); }

bool question_mark_typed() {
    for (ImWchar ch : ImGui::GetIO().InputQueueCharacters)
        if (ch == '?') return true;
    return false;
}

// Whether a text field holds the keys at the start of this frame. io.WantTextInput alone
// says what the last frame began with: in the frame after Escape left the sentence box it
// was still true, and an F5 pressed right after Escape was dropped (issue 58). The field
// must also still be the active widget.
bool keys_go_to_a_text_field() {
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    return g.IO.WantTextInput && g.ActiveId != 0 && g.ActiveId == g.InputTextState.ID;
}

}  // namespace

void handle_shortcuts(AppContext& app, FileDialog& dialog) {
    const ImGuiIO& io = ImGui::GetIO();
    if (keys_go_to_a_text_field()) return;
    ViewState& c = app.classroom;
    ControlValues& v = app.live.controls;
    if (io.KeyCtrl) {
        if (pressed(GLFW_KEY_S)) dialog.open(FileAction::SaveSession);
        if (pressed(GLFW_KEY_O)) dialog.open(FileAction::OpenSession);
        if (pressed(GLFW_KEY_M)) dialog.open(FileAction::OpenModel);
        return;
    }
    // In a lesson ← → walk its steps; in focus outside one, the pipeline's stages.
    const bool in_lesson = c.in_lesson && current_step(c);
    if (pressed(GLFW_KEY_RIGHT)) {
        if (in_lesson || !c.focus) next_step(c, app.live);
        else c.focus_walk = +1;
    }
    if (pressed(GLFW_KEY_LEFT)) {
        if (in_lesson || !c.focus) previous_step(c, app.live);
        else c.focus_walk = -1;
    }
    if (pressed(GLFW_KEY_F)) c.focus = !c.focus;
    if (pressed(GLFW_KEY_F5)) c.presenter = !c.presenter;
    attn::AttentionConfig& a = v.attention;
    const attn::SettingRow& heads = attn::setting("heads");
    if (pressed(GLFW_KEY_H) && attn::applies(heads, a.variant))  // within the slider's range
        a.heads = static_cast<int>(std::clamp<int64_t>(a.heads + (io.KeyShift ? -1 : 1), heads.app.ui_lo, heads.app.ui_hi));
    if (pressed(GLFW_KEY_D) && attn::variant_has_dropout(a.variant))  // tenths stay tenths
        a.dropout = std::clamp(std::round(a.dropout * 10.0 + (io.KeyShift ? -1.0 : 1.0)) / 10.0, 0.0, 1.0);
    if (pressed(GLFW_KEY_R)) ++a.seed;
    if (question_mark_typed()) c.help = !c.help;
    if (c.help && pressed(GLFW_KEY_ESCAPE)) c.help = false;
}

void draw_help_overlay(ViewState& c, const DrawContext& ctx) {
    if (!c.help) return;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - 20.0f * ctx.ui_scale, vp->WorkPos.y + 20.0f),
                            ImGuiCond_Always, ImVec2(1.0f, 0.0f));
    ImGui::SetNextWindowBgAlpha(0.96f);
    ImGui::Begin("Keyboard shortcuts", &c.help,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoFocusOnAppearing);
    if (ImGui::BeginTable("keys", 2)) {
        for (const auto& [keys, what] : kShortcuts) {
            ImGui::TableNextColumn();
            ImGui::PushFont(ctx.fonts.heading);
            ImGui::TextUnformatted(keys);
            ImGui::PopFont();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(what);
        }
        ImGui::EndTable();
    }
    // What the engine runs on, as --version says it: the BLAS kernels and why, the width of
    // the project's own vector loops (a newer CPU on older kernels is slower than it should be).
    static const std::string machine = attn::machine_text();
    ImGui::Separator();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 480.0f * ctx.ui_scale);
    ImGui::TextDisabled("%s", machine.c_str());
    ImGui::PopTextWrapPos();
    ImGui::End();
}

}  // namespace app
