#include "panels/lesson_panel.h"

#include <algorithm>

#include "graphics/ui_colors.h"
#include "views/wrapping.h"

namespace app {

namespace {

// ImGui's wrapping may break after a '.', which splits 0.|8900 over two lines; a
// lesson's numbers must stay whole, so its text breaks only at spaces.
void text_wrapped_at_spaces(const std::string& text) {
    const float width = ImGui::GetContentRegionAvail().x;
    std::string out, line;
    for (size_t i = 0; i <= text.size();) {
        const size_t end = std::min(text.find(' ', i), text.size());
        const std::string word = text.substr(i, end - i);
        const std::string longer = line.empty() ? word : line + " " + word;
        if (!line.empty() && ImGui::CalcTextSize(longer.c_str()).x > width) {
            out += line + "\n";
            line = word;
        } else {
            line = longer;
        }
        i = end + 1;
    }
    out += line;
    ImGui::TextUnformatted(out.c_str());
}

}  // namespace

float step_text_beside(const ViewState& c, ImVec2 room, float ui_scale) {
    if (!c.presenter || !c.focus || c.tab != ViewTab::Pipeline || !c.in_lesson || !current_lesson(c)) return 0.0f;
    // A square matrix as tall as the height less the bars above it (the lesson's buttons
    // and title, the heads, the stage, the zoom, the column labels: 8 lines or so); what
    // the width has beyond it, its legend and its row labels goes to the text.
    const float side = room.y - 8.0f * ImGui::GetFrameHeightWithSpacing();
    const float left = room.x - side - 320.0f * ui_scale;
    return left >= 240.0f * ui_scale ? std::min(left, room.x * 0.4f) : 0.0f;
}

void draw_step_text(LiveRun& live, ViewState& c, StepText& text) {
    if (const attn::Lesson* lesson = current_lesson(c); lesson && c.in_lesson)
        text_wrapped_at_spaces(text.get(c, live.run(), live.run_version()));
}

void draw_lesson_bar(LiveRun& live, ViewState& c, StepText& text, const DrawContext& ctx, bool text_beside) {
    // With the controls hidden (presenter mode) the reason a view cannot be computed
    // must still be on screen.
    if (c.presenter && !live.error().empty())
        ImGui::TextColored(ui_color(ui_colors().error), "Cannot compute: %s (showing the last view that worked)", live.error().c_str());
    const attn::Lesson* lesson = current_lesson(c);
    if (!lesson) return;
    if (!c.in_lesson) {
        const std::string back = "Back to lesson " + lesson->id + ", step " + std::to_string(c.step + 1);
        if (ImGui::Button(back.c_str())) back_to_lesson(c, live);
        return;
    }
    const int n = static_cast<int>(lesson->steps.size());
    const attn::LessonStep& step = *current_step(c);
    ImGui::BeginDisabled(c.step == 0);
    if (ImGui::Button("◀ Previous")) previous_step(c, live);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(c.step + 1 >= n);
    if (ImGui::Button("Next ▶")) next_step(c, live);
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Leave lesson")) leave_lesson(c);
    // The lesson's title beside the buttons when it fits, else below them, wrapped.
    const std::string where =
        lesson->id + "  " + lesson->title + " · step " + std::to_string(c.step + 1) + " of " + std::to_string(n);
    same_line_if_fits(ImGui::CalcTextSize(where.c_str()).x);
    text_wrapped_disabled("%s", where.c_str());
    ImGui::PushFont(ctx.fonts.heading);
    text_wrapped("%s", step.title.c_str());
    ImGui::PopFont();
    if (!c.lesson_error.empty()) ImGui::TextColored(ui_color(ui_colors().error), "%s", c.lesson_error.c_str());
    if (!text_beside) text_wrapped_at_spaces(text.get(c, live.run(), live.run_version()));
    ImGui::Separator();
}

static ViewTab draw_tab_bar(ViewState& c, WidgetRects& widgets);

ViewTab draw_view_tabs(ViewState& c, WidgetRects& widgets) {
    // A tab bar spans the content's width, which in the sideways-scrolling view is wider
    // than what is seen: in a row of the visible width, every tab stays on screen.
    ImGui::BeginChild("##tab_row", ImVec2(visible_right() - ImGui::GetCursorPosX(), ImGui::GetFrameHeight() + 2.0f),
                      false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    const ViewTab tab = draw_tab_bar(c, widgets);
    ImGui::EndChild();
    return tab;
}

static ViewTab draw_tab_bar(ViewState& c, WidgetRects& widgets) {
    if (!ImGui::BeginTabBar("view tabs")) return c.tab;
    struct Tab {
        ViewTab tab;
        const char* label;
        const char* name;  // in the state file's widgets
    };
    const Tab tabs[] = {{ViewTab::Pipeline, "Pipeline", "tab_pipeline"},
                        {ViewTab::Compare, "Compare", "tab_compare"},
                        {ViewTab::HeadLines, "Head view", "tab_head_view"},
                        {ViewTab::KvCache, "KV cache", "tab_kv_cache"},
                        {ViewTab::Tiled, "Tiled softmax", "tab_tiled_softmax"},
                        {ViewTab::Check, "Check", "tab_check"}};
    ViewTab shown = c.tab;
    for (const Tab& t : tabs) {
        // The Check tab is there while a check is open (File > Check my attention code…);
        // its × closes the check.
        const bool check = t.tab == ViewTab::Check;
        if (check && !c.check && c.tab != ViewTab::Check) continue;
        bool kept = true;
        const ImGuiTabItemFlags flags = c.select_tab && c.tab == t.tab ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem(t.label, check ? &kept : nullptr, flags);
        widgets.record(t.name);
        if (open) {
            shown = t.tab;
            ImGui::EndTabItem();
        }
        if (!kept) {
            c.check.reset();
            if (shown == ViewTab::Check) shown = ViewTab::Pipeline;
            if (c.tab == ViewTab::Check) c.show_tab(ViewTab::Pipeline);
        }
    }
    ImGui::EndTabBar();
    if (!c.select_tab) c.tab = shown;
    c.select_tab = false;
    return c.tab;
}

}  // namespace app
