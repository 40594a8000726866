#include "views/head_tiles.h"

#include <algorithm>
#include <string>

#include "imgui.h"

namespace app {

namespace {

// P: ImGui 1.86 indexes keys by the backend's codes, GLFW's (desktop and page).
constexpr int kKeyP = 80;  // GLFW_KEY_P

}  // namespace

bool is_off(const attn::ModelRun& m, int layer, int head) {
    return std::find(m.switched_off.begin(), m.switched_off.end(), attn::HeadSite{layer, head}) != m.switched_off.end();
}

bool is_patched(const attn::ModelRun& m, int layer, int head) {
    return std::find(m.patched.begin(), m.patched.end(), attn::HeadSite{layer, head}) != m.patched.end();
}

std::function<void()> tile_menu(const attn::ModelRun& m, int layer, int head, bool can_patch, WidgetRects& widgets,
                                ModelViewChoice& choice) {
    return [&m, layer, head, can_patch, &widgets, &choice] {
        const std::string name = attn::layer_head(layer, head);
        const bool off = is_off(m, layer, head), patched = is_patched(m, layer, head);
        if (ImGui::MenuItem((off ? "Switch head " + name + " back on" : "Switch head " + name + " off").c_str(), "X",
                            false, m.patched.empty()))
            choice.switch_head = std::make_pair(layer, head);
        widgets.record("switch_head");
        if (ImGui::MenuItem((patched ? "Stop patching head " + name : "Patch head " + name + " from the other text").c_str(),
                            "P", false, patched || (can_patch && m.switched_off.empty())))
            choice.patch_head = std::make_pair(layer, head);
        widgets.record("patch_head");
        if (ImGui::MenuItem(("Show head " + name + "'s pipeline").c_str())) choice.select = std::make_pair(layer, head);
    };
}

void tile_key(int layer, int head, const MatrixPlacement& p, ModelViewChoice& choice) {
    if (!p.hovered || ImGui::GetIO().WantTextInput) return;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_X), false)) choice.switch_head = std::make_pair(layer, head);
    if (ImGui::IsKeyPressed(kKeyP, false)) choice.patch_head = std::make_pair(layer, head);
}

}  // namespace app
