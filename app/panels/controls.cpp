#include "panels/controls.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "views/control_widgets.h"
#include "panels/hub_models.h"
#include "panels/setting_widgets.h"
#include "panels/tokenizer_controls.h"
#include "platform/platform.h"
#include "model/model_source.h"
#include "views/wrapping.h"

namespace app {

namespace {

std::string variant_label(const attn::VariantInfo& v) {
    return *v.section ? std::string(v.section) + "  " + v.label : v.label;
}

// The variant table as a list; each entry's settings follow from its row.
void draw_variant_list(const attn::SettingRow& row, ControlValues& c, WidgetRects& rects) {
    caption(row.app.label);
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::BeginCombo("##variant", variant_label(attn::variant_info(c.attention.variant)).c_str())) {
        // The open list, below the combo or, without room there, above it: tests pick from it.
        const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
        rects.set("variant_open", {at.x, at.y, at.x + size.x, at.y + size.y});
        for (const attn::VariantInfo& v : attn::variants())
            if (ImGui::Selectable(variant_label(v).c_str(), v.id == c.attention.variant)) c.attention.variant = v.id;
        ImGui::EndCombo();
    }
    rects.record("variant");
}

struct ModelEntry {
    std::optional<std::string> name;  // unset: the chapter 3 module
    std::string label;
};

// What the model list offers: the module, chapter 4's seeded model, the shipped trained
// models, every GPT-2 and Llama-family model (Llama 3, SmolLM2, Qwen) found in the Hugging
// Face cache (looked for once), and the file or folder opened with File > Open model…
// when one is.
std::vector<ModelEntry> model_entries(const ControlValues& c) {
    static const std::vector<attn::FoundCheckpoint> found = attn::find_huggingface_gpt2();
    static const std::vector<attn::FoundCheckpoint> found_llama = attn::find_huggingface_llama();
    std::vector<ModelEntry> entries = {{std::nullopt, "Chapter 3 module (attention variants)"},
                                       {attn::kSeededModel, "GPTModel, chapter 4 (seeded, untrained)"}};
    for (const std::string& name : attn::shipped_models())
        entries.push_back({name, "Trained: " + name + " (shipped with attnscope" + platform::download_note(name) + ")"});
    for (const attn::FoundCheckpoint& f : found) entries.push_back({f.name, "Trained: " + f.name + " (Hugging Face cache)"});
    // By repository id, as --model takes it: a link, a session or a lesson naming it opens the
    // same model on any machine whose cache has it.
    for (const attn::FoundCheckpoint& f : found_llama)
        entries.push_back({f.name, "Trained: " + f.name + " (Hugging Face cache)"});
    const bool listed = std::any_of(entries.begin(), entries.end(), [&](const ModelEntry& e) { return e.name == c.model; });
    if (c.model && !listed) entries.push_back({c.model, (attn::is_hub_repo_id(*c.model) ? "Hub: " : "File: ") + *c.model});
    return entries;
}

void draw_model_list(ControlValues& c, WidgetRects& rects) {
    caption("Model");
    const std::vector<ModelEntry> entries = model_entries(c);
    std::string current = c.model ? *c.model : "";
    for (const ModelEntry& e : entries)
        if (e.name == c.model) current = e.label;
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::BeginCombo("##model", current.c_str(), ImGuiComboFlags_HeightLargest)) {  // the Hub's entries too
        for (size_t i = 0; i < entries.size(); ++i) {
            if (ImGui::Selectable(entries[i].label.c_str(), entries[i].name == c.model))
                c.model = entries[i].name;
            rects.record("model_entry_" + std::to_string(i));  // where a test clicks an entry
        }
        draw_hub_entries(c, rects);
        ImGui::TextDisabled("File > Open model… reads a GPT-2 .safetensors or a Llama-family folder");
        ImGui::EndCombo();
    }
    rects.record("model");
    draw_hub_download(c, rects);
}

}  // namespace

void draw_controls(LiveRun& live, float& ui_scale, const Fonts& fonts, WidgetRects& rects) {
    ControlValues& c = live.controls;
    ImGui::PushFont(fonts.heading);
    ImGui::TextUnformatted("attnscope");
    ImGui::PopFont();

    // The settings table, in its order: a setting with a control is one row there.
    for (const attn::SettingRow& row : attn::setting_rows()) {
        const std::string key = row.key;
        if (key == "model") draw_model_list(c, rects);
        else if (c.model && !row.with_model) continue;  // a model has its own tokens, sizes and weights
        else if (!c.model && std::string(row.needs) == "model") continue;  // generation's: a model's only
        else if (key == "seed" && c.model && !attn::is_seeded_model(c.model)) continue;  // a checkpoint is not drawn from it
        else if (key == "tokenizer") draw_tokenizer_controls(c, live.corpus, rects);  // and the corpus field
        else if (key == "variant") draw_variant_list(row, c, rects);
        else draw_setting(row, c, rects);
    }

    if (!live.error().empty()) {
        ImGui::Spacing();
        ImGui::PushStyleColor(ImGuiCol_Text, ui_color(ui_colors().error));
        text_wrapped("Cannot compute: %s", live.error().c_str());
        ImGui::PopStyleColor();
        text_wrapped("The view shows the last settings that worked.");
    }

    ImGui::Separator();
    static float dragged_scale = 0.0f;  // what the slider shows while it is dragged
    if (!ImGui::IsAnyItemActive()) dragged_scale = ui_scale;
    caption("UI scale (projector)");
    ImGui::SetNextItemWidth(-1.0f);
    ImGui::SliderFloat("##ui_scale", &dragged_scale, 1.0f, 3.0f, "%.2f×");
    rects.record("ui_scale");
    if (ImGui::IsItemDeactivatedAfterEdit()) ui_scale = std::clamp(dragged_scale, 1.0f, 3.0f);
}

}  // namespace app
