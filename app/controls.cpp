#include "controls.h"

#include <algorithm>

#include "control_widgets.h"
#include "tokenizer_controls.h"

namespace app {

namespace {

const char* variant_label(attn::Variant v) {
    switch (v) {
    case attn::Variant::Simplified: return "3.3  simplified (no weights)";
    case attn::Variant::SelfV1: return "3.4  self-attention v1";
    case attn::Variant::SelfV2: return "3.4  self-attention v2";
    case attn::Variant::Causal: return "3.5  causal + dropout";
    case attn::Variant::MhaWrapper: return "3.6  multi-head wrapper";
    case attn::Variant::Mha: return "3.6  multi-head (weight split)";
    case attn::Variant::Cross: return "cross-attention";
    }
    return "";
}

}  // namespace

void draw_controls(Session& session, float& ui_scale, const Fonts& fonts, WidgetRects& rects) {
    ControlValues& c = session.controls;
    ImGui::PushFont(fonts.heading);
    ImGui::TextUnformatted("attnscope");
    ImGui::PopFont();

    caption("Sentence (queries)");
    ImGui::SetNextItemWidth(-1.0f);
    input_text("##text", c.text, "type a sentence");
    rects.record("text");
    draw_tokenizer_controls(c, session.corpus, rects);

    caption("Variant (book section)");
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::BeginCombo("##variant", variant_label(c.variant))) {
        // The open list, below the combo or, without room there, above it: tests pick from it.
        const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
        rects.set("variant_open", {at.x, at.y, at.x + size.x, at.y + size.y});
        for (size_t i = 0; i < attn::variant_names().size(); ++i) {
            const auto v = static_cast<attn::Variant>(i);
            if (ImGui::Selectable(variant_label(v), v == c.variant)) c.variant = v;
        }
        ImGui::EndCombo();
    }
    rects.record("variant");

    if (c.variant == attn::Variant::Cross) {
        caption("Second text (keys, values)");
        ImGui::SetNextItemWidth(-1.0f);
        input_text("##text2", c.text2, "empty: torch.rand rows");
        rects.record("text2");
        if (c.text2.empty()) slider_int("random rows (kv_len)", "kv_len", c.kv_len, 1, 64, rects);
    }

    slider_int("seed (torch.manual_seed)", "seed", c.seed, 0, 999, rects);
    slider_int("embedding seed", "embed_seed", c.embed_seed, 0, 999, rects);
    // GPT-2 small's width is the top; ctrl+click types an exact value.
    slider_int("d_in (embedding width)", "d_in", c.d_in, 1, 768, rects, ImGuiSliderFlags_Logarithmic);

    const bool projections = variant_has_projections(c.variant);
    ImGui::BeginDisabled(!projections);
    if (slider_int("d_out", "d_out", c.d_out, 1, 1024, rects, ImGuiSliderFlags_Logarithmic) &&
        c.d_out_v_follows_d_out)
        c.d_out_v = c.d_out;
    ImGui::EndDisabled();

    if (variant_has_d_out_v(c.variant)) {
        if (slider_int("d_out_v (value width)", "d_out_v", c.d_out_v, 1, 1024, rects, ImGuiSliderFlags_Logarithmic))
            c.d_out_v_follows_d_out = false;
        if (checkbox("d_out_v = d_out", "d_out_v_follows", c.d_out_v_follows_d_out, rects) && c.d_out_v_follows_d_out)
            c.d_out_v = c.d_out;
    }

    ImGui::BeginDisabled(!variant_has_heads(c.variant));
    slider_int("heads", "heads", c.heads, 1, 16, rects);
    ImGui::EndDisabled();

    const bool dropout = attn::variant_has_dropout(c.variant);
    ImGui::BeginDisabled(!dropout);
    caption("dropout rate p");
    ImGui::SetNextItemWidth(-1.0f);
    ImGui::SliderFloat("##dropout", &c.dropout, 0.0f, 1.0f, "%.2f");
    rects.record("dropout");
    checkbox("training mode (dropout on)", "training", c.training, rects);
    ImGui::EndDisabled();

    ImGui::BeginDisabled(!variant_has_qkv_bias(c.variant));
    checkbox("qkv bias", "qkv_bias", c.qkv_bias, rects);
    ImGui::EndDisabled();
    if (variant_has_causal_toggle(c.variant)) checkbox("causal mask", "causal", c.causal, rects);
    checkbox("positional embeddings", "pos", c.pos, rects);
    ImGui::BeginDisabled(!c.pos);
    slider_int("context_length (positional rows)", "context_length", c.context_length, 0, 4096, rects,
               ImGuiSliderFlags_Logarithmic, c.context_length == 0 ? "auto: the token count" : "%d");
    ImGui::EndDisabled();

    if (!session.error().empty()) {
        ImGui::Spacing();
        ImGui::PushStyleColor(ImGuiCol_Text, ui_color(ui_colors().error));
        ImGui::TextWrapped("Cannot compute: %s", session.error().c_str());
        ImGui::PopStyleColor();
        ImGui::TextWrapped("The view shows the last settings that worked.");
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
