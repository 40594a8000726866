#include "ui.h"

#include "imgui_internal.h"  // the view pane's clip rectangle

#include <algorithm>
#include <utility>

#include "views/check_view.h"
#include "views/focus_view.h"
#include "views/model_view.h"
#include "views/stage_labels.h"
#include "interventions/intervention_flags.h"
#include "run/model_run.h"
#include "text/gpt2_tokenizer.h"
#include "panels/lesson_panel.h"
#include "graphics/ui_colors.h"
#include "views/wrapping.h"

namespace app {

namespace {

void run_summary(const LiveRun& live, const attn::Run& run) {
    const attn::Trace& t = run.trace;
    const std::string embedding = run.embedding == "book" ? "the book's 3-d vectors" : "random nn.Embedding";
    text_wrapped("variant %s · %zu head%s · embedding: %s · computed in %.1f ms%s", t.variant.c_str(),
                 t.heads.size(), t.heads.size() == 1 ? "" : "s", embedding.c_str(), live.last_compute_ms(),
                 live.last_was_dropout_only() ? " (only the stages after the weights)" : "");
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text_wrapped("Numbers in cells are rounded to 2 decimals; hover a cell for its exact value and how it was "
                 "computed. Rows are queries, columns are keys.");
    ImGui::PopStyleColor();
}

// A model's tokens as chips; a click picks the position whose next tokens are shown, a
// click on the picked one the last token again. The frame marks the position the
// controls ask for (a pick past the tokens: the last, as the worker shows it), so that it
// moves at the click, before the run with its next tokens arrives.
void pick_next_position(LiveRun& live, const attn::Run& run, const DrawContext& ctx, FrameReport& report) {
    const std::optional<int>& wanted = live.controls.next_at;
    const size_t last = run.tokens.ids.size() - 1;
    const bool picked = wanted && static_cast<size_t>(*wanted) <= last;
    ChipPick pick;
    pick.marked = picked ? static_cast<size_t>(*wanted) : last;
    pick.click_hint = "a click shows the next tokens after this token";
    pick.marked_hint = picked ? "a click again shows those after the last token"
                              : "a click keeps the next tokens after this token while tokens are appended";
    // A model's tokens are its own tokenizer's (GPT-2's, a Llama-family folder's tokenizer.json).
    const attn::FamilyNames& family = run.model->model.model->names();
    const std::string caption = live.run_settings().ids ? std::string("Tokens (the ids given, no tokenizer)")
                                                        : std::string("Tokens (") + family.tokenizer_name + ")";
    if (const std::optional<size_t> clicked =
            draw_token_chips(caption.c_str(), run.tokens, &attn::tokenizer_row(family.tokenizer),
                             live.run_settings().text, ctx, report.chips, &pick)) {
        if (picked && *clicked == pick.marked) live.controls.next_at.reset();
        else live.controls.next_at = static_cast<int>(*clicked);
    }
}

// A GPT model's run: the layer x head grid and the next tokens, then the shown head's
// pipeline as the chapter 3 module's (the run on screen is that layer's attention).
void model(LiveRun& live, AppPanels& panels, const DrawContext& ctx, ViewMemo& memo, FrameReport& report) {
    const attn::Run& run = *live.run();
    const attn::ModelRun& m = *run.model;
    const attn::ModelShape shape = attn::model_shape(m.model);
    ViewState& c = panels.classroom;
    const int head = live.shown_head();
    if (!c.focus) {
        // Grouped-query attention: say how many key/value heads the query heads share.
        const std::string kv = shape.kv_heads == shape.heads ? ""
                               : " (" + std::to_string(shape.kv_heads) + (shape.kv_heads == 1 ? " key/value head)" : " key/value heads)");
        text_wrapped("%s · %d layers x %d heads%s · d_model %d · %s · %zu of %lld tokens · computed in %.1f ms",
                     m.model.name.c_str(), shape.layers, shape.heads, kv.c_str(), shape.d_model, m.model.dtype.c_str(),
                     run.tokens.ids.size(), static_cast<long long>(shape.context_length), live.last_compute_ms());
        pick_next_position(live, run, ctx, report);
        ImGui::Separator();
    }
    const ViewTab tab = c.focus ? c.tab : draw_view_tabs(c, report.widgets);
    // A lesson on trained heads marks its cells here as chapter 3's lessons do.
    const attn::LessonStep* step = current_step(c);
    const StageMarks marks = step ? step_marks(*step) : StageMarks{};
    if (tab == ViewTab::Check) return draw_check_view(c, ctx, report);
    if (tab == ViewTab::Compare || tab == ViewTab::KvCache || tab == ViewTab::Tiled) {
        text_wrapped("This tab works on the chapter 3 module and today's variants: choose it under Model.");
        return;
    }
    if (tab == ViewTab::HeadLines) return panels.head_view.draw(run, head, ctx, report);  // any layer's heads
    // A lesson step about the prediction (stage next_tokens) shows the model view's top, in
    // focus (presenter mode) too: its bars are what the room reads.
    const bool prediction = step && step->stage == attn::kNextTokensStage;
    if (c.focus && !prediction) {
        if (!live.scroll_to_stage.empty()) c.focus_stage = std::exchange(live.scroll_to_stage, std::string());
        const int walk = std::exchange(c.focus_walk, 0);
        if (const std::optional<int> clicked =
                draw_focus(run, head, c.focus_stage, walk, ctx, memo, report.heatmaps, step ? &marks : nullptr))
            live.select_head(*clicked);
        return;
    }
    if (live.scroll_to_stage == attn::kNextTokensStage) {
        if (c.focus) c.focus_stage = attn::kNextTokensStage;
        scroll_to_card(live.scroll_to_stage, memo);
    }
    const ModelViewChoice choice =
        draw_model_view(run, m.layer, head, live.generating, live.controls.next_at,
                        {live.controls.logit_lens, live.controls.attribute, live.controls.patch, live.controls.patch_from,
                         live.controls.head_effects, live.controls.ids.has_value()},
                        ctx, report.heatmaps, report.widgets);
    if (choice.select) {
        live.controls.layer = choice.select->first;
        live.select_head(choice.select->second);
    }
    if (choice.append) ++live.controls.generate;
    if (choice.clear) live.controls.generate = 0;
    if (choice.next_at_last) live.controls.next_at.reset();
    if (choice.switch_head)
        live.controls.ablate = attn::toggle_head(live.controls.ablate, {choice.switch_head->first, choice.switch_head->second});
    if (choice.all_heads_on) live.controls.ablate.reset();
    if (choice.patch_head)
        live.controls.patch = attn::toggle_head(live.controls.patch, {choice.patch_head->first, choice.patch_head->second});
    if (choice.patch.stop) live.controls.patch.reset();
    if (choice.head_effects)
        live.controls.head_effects = choice.head_effects->empty() ? std::nullopt : choice.head_effects;
    if (choice.patch.patch_from)
        live.controls.patch_from = choice.patch.patch_from->empty() ? std::nullopt : choice.patch.patch_from;
    if (choice.logit_lens) live.controls.logit_lens = *choice.logit_lens;
    if (choice.attribute)
        live.controls.attribute = choice.attribute->empty() ? std::nullopt : std::optional<std::string>(*choice.attribute);
    if (choice.generate) live.generating = choice.generate;
    if (choice.stop || !live.error().empty()) live.generating = 0;
    // One token a run: the next is asked for once the run with the last one arrived.
    if (live.generating > 0 && !live.computing() && live.run_settings() == live.settings()) {
        ++live.controls.generate;
        --live.generating;
    }
    ImGui::Separator();
    ImGui::PushFont(ctx.fonts.heading);
    ImGui::Text("Pipeline of %s (layer %d): inputs are the %s'd residual stream", head_name(run, head).c_str(), m.layer,
                m.model.model->names().norm);
    ImGui::PopFont();
    draw_pipeline(run, head, ctx, memo, live.scroll_to_stage, report.heatmaps, step ? &marks : nullptr);
}

// What the worker is doing ("computing…", a layer a step). Over a run it floats at the view's
// top right instead of taking a line, so the view under it never moves when a run starts or
// ends (a click aimed at a tile would land a line off).
void activity(const LiveRun& live, bool over_a_run) {
    if (over_a_run) {
        const ImVec2 origin = ImGui::GetWindowPos();
        ImGui::SetNextWindowPos(ImVec2(origin.x + ImGui::GetWindowContentRegionMax().x,
                                       origin.y + ImGui::GetWindowContentRegionMin().y),
                                ImGuiCond_Always, ImVec2(1.0f, 0.0f));
        ImGui::SetNextWindowBgAlpha(1.0f);  // over stale figures of the last run
        constexpr ImGuiWindowFlags kToast = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                            ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                            ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs;
        ImGui::Begin("##activity", nullptr, kToast);
    }
    ImGui::TextColored(ui_color(ui_colors().busy), "%s", live.activity().c_str());
    if (const WorkProgress p = live.progress(); p.total > 0) {  // a run in steps: layers, or (browser) heads
        const std::string steps = std::to_string(p.done) + " of " + std::to_string(p.total) + " steps";
        ImGui::SameLine();
        ImGui::ProgressBar(static_cast<float>(p.done) / static_cast<float>(p.total),
                           ImVec2(16.0f * ImGui::GetFontSize(), 0.0f), steps.c_str());
    }
    if (over_a_run) ImGui::End();
}

void view(LiveRun& live, AppPanels& panels, const DrawContext& ctx, ViewMemo& memo, FrameReport& report) {
    const attn::Run* run = live.run();
    if (live.computing()) activity(live, run != nullptr);
    if (!run) {
        if (!live.computing()) text_wrapped("Nothing to show yet: %s", live.error().c_str());
        return;
    }
    if (!live.error().empty()) {  // here too: the controls' own copy may be scrolled out of sight
        ImGui::PushStyleColor(ImGuiCol_Text, ui_color(ui_colors().error));
        text_wrapped("Cannot compute: %s. Showing the last settings that worked.", live.error().c_str());
        ImGui::PopStyleColor();
    }
    ViewState& c = panels.classroom;
    if (run->model) return model(live, panels, ctx, memo, report);
    if (!c.focus) {  // focus folds away what the stage on screen does not need
        run_summary(live, *run);
        const attn::Settings& shown = live.run_settings();
        draw_token_chips("Tokens", run->tokens, attn::find_tokenizer(shown.tokenizer), shown.text, ctx, report.chips);
        if (run->tokens2)
            draw_token_chips("Second text", *run->tokens2, attn::find_tokenizer(shown.tokenizer), shown.text2.value_or(""), ctx,
                             report.chips);
        panels.data_sampler.draw(*run, live.run_version(), ctx, report.widgets, report.window);
        ImGui::Separator();
    }
    // Focus keeps the tab it is on without the tab bar (F brings it back).
    const ViewTab tab = c.focus ? c.tab : draw_view_tabs(c, report.widgets);
    const attn::LessonStep* step = current_step(c);
    const StageMarks marks = step ? step_marks(*step) : StageMarks{};
    if (tab == ViewTab::Check) return draw_check_view(c, ctx, report);
    if (tab == ViewTab::Compare) return panels.compare.draw(c, live, ctx, step ? &marks : nullptr, report.heatmaps);
    const int head = live.shown_head();  // a head of `run`, whatever was asked for
    if (tab == ViewTab::HeadLines) return panels.head_view.draw(*run, head, ctx, report);
    if (tab == ViewTab::KvCache) return panels.kv_cache.draw(*run, live.run_settings(), live.run_version(), head, ctx, report);
    if (tab == ViewTab::Tiled) return panels.tiled.draw(*run, live.run_version(), head, ctx, report);
    if (c.focus) {
        // A lesson step (or --show-stage) names the stage to show: the view follows it.
        if (!live.scroll_to_stage.empty()) c.focus_stage = std::exchange(live.scroll_to_stage, std::string());
        const int walk = std::exchange(c.focus_walk, 0);
        if (const std::optional<int> clicked =
                draw_focus(*run, head, c.focus_stage, walk, ctx, memo, report.heatmaps, step ? &marks : nullptr))
            live.select_head(*clicked);
        return;
    }
    if (run->trace.heads.size() > 1) {
        if (const std::optional<int> clicked = draw_head_strip(*run, head, ctx, report.heatmaps))
            live.select_head(*clicked);
        ImGui::Separator();
    }
    ImGui::PushFont(ctx.fonts.heading);
    ImGui::Text("Pipeline of %s", head_name(*run, head).c_str());
    ImGui::PopFont();
    draw_pipeline(*run, head, ctx, memo, live.scroll_to_stage, report.heatmaps,
                  step ? &marks : nullptr);
}

}  // namespace

void draw_window(LiveRun& live, float& ui_scale, const DrawContext& ctx, ViewMemo& memo, FrameReport& report,
                 AppPanels& panels) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("attnscope", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground);
    if (!panels.classroom.presenter) {  // presenter mode hides the controls
        const float panel = std::min(330.0f * ctx.ui_scale, vp->WorkSize.x * 0.4f);
        ImGui::BeginChild("controls", ImVec2(panel, 0.0f), true);
        draw_controls(live, ui_scale, ctx.fonts, report.widgets);
        ImGui::EndChild();
        ImGui::SameLine();
    }
    // The lesson bar stays put while the view below it scrolls to the step's stage.
    ImGui::BeginGroup();
    const float beside = step_text_beside(panels.classroom, ImGui::GetContentRegionAvail(), ctx.ui_scale);
    draw_lesson_bar(live, panels.classroom, panels.step_text, ctx, beside > 0.0f);
    ImGui::BeginChild("view", ImVec2(beside > 0.0f ? -beside : 0.0f, 0.0f), true, ImGuiWindowFlags_HorizontalScrollbar);
    const ImRect seen = ImGui::GetCurrentWindow()->InnerClipRect;  // inside the borders and scroll bars
    report.viewport = {seen.Min.x, seen.Min.y, seen.Max.x, seen.Max.y};
    view(live, panels, ctx, memo, report);
    ImGui::EndChild();
    if (beside > 0.0f) {
        ImGui::SameLine();
        ImGui::BeginChild("step_text", ImVec2(0.0f, 0.0f), false);
        draw_step_text(live, panels.classroom, panels.step_text);
        ImGui::EndChild();
        report.widgets.record("step_text");
    }
    ImGui::EndGroup();
    ImGui::End();
}

}  // namespace app
