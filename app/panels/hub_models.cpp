#include "panels/hub_models.h"

#include <algorithm>
#include <map>
#include <string>

#include "base/byte_sizes.h"
#include "imgui.h"
#include "imgui_stdlib.h"
#include "model/hub_catalog.h"
#include "model/model_source.h"
#include "platform/platform.h"

namespace app {

namespace {

// Which of the offered models the cache has: read when the list opens, not every frame.
std::map<std::string, bool>& cached_models() {
    static std::map<std::string, bool> cached;
    return cached;
}

void choose(ControlValues& c, const std::string& repo) {
    platform::retry_fetch(repo);  // chosen again after a failure or a Cancel: try again
    c.model = repo;
}

bool kept(const std::string& repo) {
    const std::vector<platform::KeptModel>& models = platform::kept_models().models;
    return std::any_of(models.begin(), models.end(), [&](const platform::KeptModel& m) { return m.repo == repo; });
}

// The page's: what the browser keeps for the next visit (its Cache Storage), how much of its
// storage that is, and Remove. Nothing on the desktop (kept_models() is empty there).
void draw_kept(WidgetRects& rects) {
    const platform::KeptModels& k = platform::kept_models();
    if (k.models.empty()) return;
    double bytes = 0;
    for (const platform::KeptModel& m : k.models) bytes += m.bytes;
    ImGui::TextDisabled("Kept in this browser for the next visit, offline too: %s (the site uses %s of the %s it may)",
                        attn::size_text(bytes).c_str(), attn::size_text(k.usage).c_str(), attn::size_text(k.quota).c_str());
    rects.record("hub_kept");
    for (size_t i = 0; i < k.models.size(); ++i) {
        const platform::KeptModel& m = k.models[i];
        ImGui::Text("  %s  ·  %s", m.repo.c_str(), attn::size_text(m.bytes).c_str());
        ImGui::SameLine();
        if (ImGui::SmallButton(("Remove##kept_" + std::to_string(i)).c_str())) platform::remove_kept_model(m.repo);
        rects.record("hub_remove_" + std::to_string(i));
    }
}

}  // namespace

void draw_hub_entries(ControlValues& c, WidgetRects& rects) {
    if (!platform::fetches_from_hub()) return;
    if (ImGui::IsWindowAppearing())
        for (const attn::HubCatalogEntry& e : attn::hub_catalog())
            cached_models()[e.repo_id] = !attn::huggingface_model_folder(e.repo_id).empty();
    ImGui::Separator();
    ImGui::TextDisabled("Get a model from the Hub (Hugging Face):");
    const std::vector<attn::HubCatalogEntry>& catalog = attn::hub_catalog();
    for (size_t i = 0; i < catalog.size(); ++i) {
        const attn::HubCatalogEntry& e = catalog[i];
        const std::string label = e.label + "  ·  " + e.repo_id + "  ·  " +
                                  (cached_models()[e.repo_id] ? "in the cache"
                                   : kept(e.repo_id)      ? "kept in this browser"
                                                          : "a " + e.size + " download") +
                                  (e.gated ? platform::gated_note() : "");
        if (ImGui::Selectable(label.c_str(), c.model == e.repo_id)) choose(c, e.repo_id);
        rects.record("hub_entry_" + std::to_string(i));
    }
    // Any other GPT-2 or Llama-family repository, by its id.
    static std::string typed;
    static bool refused = false;
    ImGui::SetNextItemWidth(-5.0f * ImGui::GetFontSize());
    const bool enter = ImGui::InputTextWithHint("##hub_repo", "another ORG/NAME", &typed, ImGuiInputTextFlags_EnterReturnsTrue);
    rects.record("hub_repo");
    ImGui::SameLine();
    if (ImGui::Button("Get") || enter) {
        refused = !attn::is_hub_repo_id(typed);
        if (!refused) {
            choose(c, typed);
            ImGui::CloseCurrentPopup();
        }
    }
    rects.record("hub_get");
    if (refused) ImGui::TextDisabled("\"%s\" is not a repository id: ORG/NAME, as the Hub's address has it", typed.c_str());
    draw_kept(rects);
}

void draw_hub_download(const ControlValues& c, WidgetRects& rects) {
    const double fraction = platform::fetch_fraction(c.model);
    if (fraction < 0.0) return;
    char percent[16];
    std::snprintf(percent, sizeof percent, "%.0f%%", 100.0 * fraction);
    ImGui::ProgressBar(static_cast<float>(fraction), ImVec2(-5.0f * ImGui::GetFontSize(), 0.0f), percent);
    rects.record("hub_progress");
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) platform::cancel_fetch(*c.model);
    rects.record("hub_cancel");  // bytes, rate and time left: the activity line over the view (ui.cpp)
}

}  // namespace app
