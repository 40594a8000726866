#include "ui.h"

#include <algorithm>

namespace app {

namespace {

constexpr size_t kMaxChips = 200;  // a 1024-token text would fill the screen with chips

void token_chips(const char* caption, const attn::Tokenized& t, const DrawContext& ctx) {
    ImGui::Text("%s (%zu):", caption, t.tokens.size());
    const float avail_right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const float pad = 5.0f * ctx.ui_scale;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const size_t shown = std::min(t.tokens.size(), kMaxChips);
    for (size_t i = 0; i < shown; ++i) {
        const std::string word = t.tokens[i];
        const std::string id = std::to_string(t.ids[i]);
        ImGui::PushFont(ctx.fonts.small);
        const ImVec2 id_size = ImGui::CalcTextSize(id.c_str());
        ImGui::PopFont();
        const ImVec2 word_size = ImGui::CalcTextSize(word.c_str());
        const ImVec2 size(word_size.x + id_size.x + pad * 3.0f, word_size.y + pad);
        ImGui::SameLine();
        if (ImGui::GetCursorScreenPos().x + size.x > avail_right) ImGui::NewLine();
        const ImVec2 a = ImGui::GetCursorScreenPos();
        ImGui::Dummy(size);
        const ImVec2 b(a.x + size.x, a.y + size.y);
        dl->AddRectFilled(a, b, IM_COL32(225, 235, 250, 255), 6.0f);
        dl->AddRect(a, b, IM_COL32(70, 90, 140, 255), 6.0f);
        dl->AddText(ImVec2(a.x + pad, a.y + pad * 0.5f), IM_COL32(0, 0, 0, 255), word.c_str());
        dl->AddText(ctx.fonts.small, ctx.fonts.small->FontSize,
                    ImVec2(a.x + pad * 2.0f + word_size.x, b.y - id_size.y - pad * 0.5f), IM_COL32(60, 60, 110, 255),
                    id.c_str());
    }
    if (shown < t.tokens.size()) {
        ImGui::SameLine();
        ImGui::Text("… and %zu more", t.tokens.size() - shown);
    }
}

void run_summary(const Session& session, const attn::Run& run) {
    const attn::Trace& t = run.trace;
    const std::string embedding = run.embedding == "book" ? "the book's 3-d vectors" : "random nn.Embedding";
    ImGui::TextWrapped("variant %s · %zu head%s · embedding: %s · computed in %.1f ms%s", t.variant.c_str(),
                t.heads.size(), t.heads.size() == 1 ? "" : "s", embedding.c_str(), session.last_compute_ms(),
                session.last_was_dropout_only() ? " (only the stages after the weights)" : "");
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("Numbers in cells are rounded to 2 decimals; hover a cell for its exact value and how it was "
                       "computed. Rows are queries, columns are keys.");
    ImGui::PopStyleColor();
}

void view(Session& session, const DrawContext& ctx, ViewMemo& memo, FrameReport& report) {
    const attn::Run* run = session.run();
    if (session.computing())
        ImGui::TextColored(ImVec4(0.1f, 0.3f, 0.8f, 1.0f), "computing…");
    if (!run) {
        if (!session.computing()) ImGui::TextWrapped("Nothing to show yet: %s", session.error().c_str());
        return;
    }
    if (!session.error().empty())
        ImGui::TextColored(ImVec4(0.8f, 0.0f, 0.0f, 1.0f), "Showing the last settings that worked (see the red "
                                                           "message on the left).");
    run_summary(session, *run);
    token_chips("Tokens", run->tokens, ctx);
    if (run->tokens2) token_chips("Second text", *run->tokens2, ctx);
    ImGui::Separator();
    if (run->trace.heads.size() > 1) {
        draw_head_strip(*run, session.selected_head, ctx, report.heatmaps);
        ImGui::Separator();
    }
    ImGui::PushFont(ctx.fonts.heading);
    ImGui::Text("Pipeline of head %d", session.selected_head + 1);
    ImGui::PopFont();
    draw_pipeline(*run, session.selected_head, ctx, memo, session.scroll_to_stage, report.heatmaps);
}

}  // namespace

void draw_window(Session& session, float& ui_scale, const DrawContext& ctx, ViewMemo& memo, FrameReport& report) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("attnscope", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground);
    const float panel = std::min(330.0f * ctx.ui_scale, vp->WorkSize.x * 0.4f);
    ImGui::BeginChild("controls", ImVec2(panel, 0.0f), true);
    draw_controls(session, ui_scale, ctx.fonts, report.widgets);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("view", ImVec2(0.0f, 0.0f), true, ImGuiWindowFlags_HorizontalScrollbar);
    view(session, ctx, memo, report);
    ImGui::EndChild();
    ImGui::End();
}

}  // namespace app
