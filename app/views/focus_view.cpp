#include "views/focus_view.h"

#include <algorithm>

#include "views/stage_labels.h"
#include "views/wrapping.h"

namespace app {

namespace {

// Where `stage` is among the cards; the weights (the point of the app) when absent.
size_t index_of(const std::vector<PipelineCard>& cards, const std::string& stage) {
    const auto named = [&](const std::string& name) {
        return std::find_if(cards.begin(), cards.end(), [&](const PipelineCard& c) { return c.stage->name == name; });
    };
    auto it = named(stage);
    if (it == cards.end()) it = named("weights");
    return it == cards.end() ? 0 : static_cast<size_t>(it - cards.begin());
}

// ◀ 5 / 14 ▶ and the stage's title; a button pressed names the stage for the next frame.
void draw_stage_bar(const attn::Run& run, const std::vector<PipelineCard>& cards, size_t i, int head, std::string& stage,
                    const DrawContext& ctx) {
    ImGui::BeginDisabled(i == 0);
    if (ImGui::ArrowButton("##previous_stage", ImGuiDir_Left)) stage = cards[i - 1].stage->name;
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(i + 1 == cards.size());
    if (ImGui::ArrowButton("##next_stage", ImGuiDir_Right)) stage = cards[i + 1].stage->name;
    ImGui::EndDisabled();
    ImGui::SameLine();
    const attn::Stage& s = *cards[i].stage;
    const std::string where = cards[i].head ? " · " + head_name(run, head) : "";
    ImGui::PushFont(ctx.fonts.heading);
    text_wrapped("%zu / %zu  %s%s  (%d × %d)", i + 1, cards.size(), stage_title(s.name, run.trace).c_str(), where.c_str(),
                 static_cast<int>(s.value.rows()), static_cast<int>(s.value.cols()));
    ImGui::PopFont();
}

}  // namespace

std::optional<int> draw_focus(const attn::Run& run, int head, std::string& stage, int walk, const DrawContext& ctx,
                              ViewMemo& memo, HeatmapRegistry& shown, const StageMarks* marks) {
    const attn::Stage output = output_stage(run.trace);
    std::vector<PipelineCard> cards = pipeline_cards(run.trace, head, output);
    cards.erase(std::remove_if(cards.begin(), cards.end(), [](const PipelineCard& c) { return c.stage->value.size() == 0; }),
                cards.end());
    if (cards.empty()) return std::nullopt;
    const size_t i = static_cast<size_t>(
        std::clamp<long>(static_cast<long>(index_of(cards, stage)) + walk, 0, static_cast<long>(cards.size()) - 1));
    // A stage this run lacks (a lesson step's, while the step's own run is computing) is
    // still the one asked for: the weights stand in until a run has it. A walk moves on.
    const bool asked_for_is_here = cards[i].stage->name == stage;
    if (walk != 0 || asked_for_is_here) stage = cards[i].stage->name;

    std::optional<int> clicked;
    if (run.trace.heads.size() > 1) clicked = draw_head_strip(run, head, ctx, shown, /*thumbnails=*/true);
    draw_stage_bar(run, cards, i, head, stage, ctx);

    const PipelineCard& card = cards[i];
    const attn::Stage& s = *card.stage;
    MatrixRequest req = request_for(run, card, "focus/" + s.name, ctx, memo);
    req.export_name = card.head ? head_file_name(run, head) + "_" + s.name : s.name;
    req.max_cell = 400.0f;  // as large as the screen allows: the room reads it
    req.widen_for_values = true;
    if (marks && marks->stage == s.name) {
        req.marks = &marks->cells;
        req.highlight = true;
    }
    memo.focus_zoom.draw_bar(s.value.rows(), s.value.cols(), ctx);
    memo.focus_zoom.narrow(req, (card.head ? head_name(run, head) + "/" : "") + s.name, ctx.run_version);
    // The legend goes right of the heatmap (a screen has more width than height to
    // spare); the labels take what the footprint at full size says they take.
    const float legend_w = kLegendMinWidth * ctx.ui_scale + ImGui::GetStyle().ItemSpacing.x * 2.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImVec2 view = ImGui::GetCursorScreenPos();
    // The highlight frame drawn outside the heatmap, and the spacing Dear ImGui keeps
    // below the last item of the pane.
    const float frame = 8.0f * ctx.ui_scale + ImGui::GetStyle().ItemSpacing.y * 2.0f;
    // The largest heatmap whose footprint (labels included) fits the room. Labels come
    // and go with the cells' size (turned only where a line fits a cell), so the
    // footprint is not a simple function of the size: search the fraction of the room
    // the heatmap may take, rather than subtract what the labels took at another size.
    const ImVec2 room(std::max(avail.x - legend_w - frame, 16.0f), std::max(avail.y - frame, 16.0f));
    const auto fits = [&](float share) {
        req.max_size = ImVec2(std::max(room.x * share, 16.0f), std::max(room.y * share, 16.0f));
        for (int pass = 0; pass < 2; ++pass) req.text_font = readable_font(req, ctx);  // the font for these cells
        const ImVec2 whole = matrix_footprint(req, ctx);
        return whole.x <= room.x + 0.5f && whole.y <= room.y + 0.5f;
    };
    float lo = 0.0f, hi = 1.0f;
    if (fits(1.0f)) lo = 1.0f;
    for (int step = 0; step < 12 && lo < 1.0f; ++step) {
        const float mid = (lo + hi) * 0.5f;
        (fits(mid) ? lo : hi) = mid;
    }
    fits(lo);
    ImGui::SetCursorPos(ImVec2(ImGui::GetCursorPos().x + frame * 0.5f, ImGui::GetCursorPos().y + frame * 0.5f));
    ImGui::BeginGroup();
    MatrixPlacement p = draw_matrix(req, ctx);
    memo.focus_zoom.interact(p);  // p's cell is the whole matrix's from here
    ImGui::EndGroup();
    ImGui::SameLine(0.0f, ImGui::GetStyle().ItemSpacing.x * 2.0f);
    ImGui::BeginGroup();
    ImGui::Dummy(ImVec2(0.0f, p.min.y - ImGui::GetCursorScreenPos().y));  // level with the heatmap's top
    p.figures = draw_legend(req.scale, kLegendMinWidth * ctx.ui_scale, ctx);
    ImGui::EndGroup();
    cell_tooltip(run, card, p, ctx);
    record(shown, s.name, p, s.value);
    const CellBlock b = memo.focus_zoom.block();
    HeatmapInfo& info = shown[s.name];
    info.row0 = static_cast<int>(b.row0);
    info.col0 = static_cast<int>(b.col0);
    info.block_rows = static_cast<int>(b.rows);
    info.block_cols = static_cast<int>(b.cols);
    info.view = {view.x, view.y, view.x + avail.x, view.y + avail.y};
    return clicked;
}

}  // namespace app
