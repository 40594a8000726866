#include "panels/tokenizer_controls.h"

#include "platform/platform.h"

#include "views/control_widgets.h"
#include "text/simple_tokenizer.h"
#include "text/tokenizer_table.h"
#include "views/wrapping.h"

namespace app {

namespace {

// Checks the file as the core will read it, so that a bad path never replaces a
// working vocabulary. An empty path means the typed text.
void load_corpus(ControlValues& c, CorpusField& corpus) {
    corpus.error.clear();
    if (corpus.path.empty()) {
        c.corpus_file.reset();
        return;
    }
    try {
        attn::SimpleTokenizerV2::load_corpus(corpus.path);
        c.corpus_file = corpus.path;
    } catch (const std::exception& e) {
        corpus.error = e.what();
    }
}

}  // namespace

void draw_tokenizer_controls(ControlValues& c, CorpusField& corpus, WidgetRects& rects) {
    caption("Tokenizer");
    bool first = true;
    for (const attn::TokenizerRow& row : attn::tokenizer_rows()) {
        if (!*row.label) continue;  // a tokenizer.json: a lesson's or the CLI's, no button
        if (!first) same_line_if_fits(radio_width(row.label));  // wrap at a large UI scale
        first = false;
        if (ImGui::RadioButton(row.label, c.tokenizer == row.name)) c.tokenizer = row.name;
        rects.record(std::string("tokenizer_") + row.name);
    }
    const attn::TokenizerRow* chosen = attn::find_tokenizer(c.tokenizer);
    if (chosen) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        text_wrapped("%s", chosen->about);
        ImGui::PopStyleColor();
    }
    if (!chosen || !chosen->takes_corpus) return;

    caption("Corpus file (empty: the typed text)");
    // In the browser the corpus comes from its file picker and loads as it arrives.
    std::string refused;
    if (const std::optional<std::string> picked = platform::picked_file("corpus", refused)) {
        corpus.path = *picked;
        load_corpus(c, corpus);
    }
    if (!refused.empty()) corpus.error = refused;
    const bool picker = platform::has_file_picker();
    const char* button = picker ? "Choose…" : "Load";
    const float button_w = ImGui::CalcTextSize(button).x + ImGui::GetStyle().FramePadding.x * 2.0f;
    ImGui::SetNextItemWidth(-(button_w + ImGui::GetStyle().ItemSpacing.x));
    const bool enter = input_text("##corpus", corpus.path, "path/to/the-verdict.txt",
                                  ImGuiInputTextFlags_EnterReturnsTrue);
    rects.record("corpus");
    ImGui::SameLine();
    const bool clicked = ImGui::Button(button);
    rects.record("corpus_load");
    if (clicked && picker) platform::pick_file("corpus");
    else if (enter || clicked) load_corpus(c, corpus);
    if (!corpus.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ui_color(ui_colors().error));
        text_wrapped("%s", corpus.error.c_str());
        ImGui::PopStyleColor();
    }
    text_wrapped("vocabulary: %s", c.corpus_file ? c.corpus_file->c_str() : "the typed text");
}

}  // namespace app
