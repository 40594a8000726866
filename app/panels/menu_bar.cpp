#include "panels/menu_bar.h"

#include "state/colormap.h"
#include "state/lesson_player.h"
#include "run/model_run.h"
#include "output/pytorch_emit_model.h"
#include "panels/export_actions.h"
#include "graphics/ui_colors.h"
#include "platform/platform.h"

namespace app {

namespace {

// A closed menu's title is recorded as menu_NAME and an open menu's list as
// menu_NAME_open, so that window tests can open it and pick an item. (Once open,
// ImGui's last item is the list's window, not the title.)
bool begin_menu(const char* label, const std::string& name, WidgetRects& widgets) {
    if (!ImGui::BeginMenu(label)) {
        widgets.record(name);
        return false;
    }
    const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    widgets.set(name + "_open", {at.x, at.y, at.x + size.x, at.y + size.y});
    return true;
}

void file_menu(AppContext& app, FileDialog& dialog, WidgetRects& widgets, bool& quit) {
    if (!begin_menu("File", "menu_file", widgets)) return;
    const bool have_run = app.live.run() != nullptr;
    // A GPT model's program reads its file again: gone since it loaded, the items say so.
    const attn::ModelRun* model = app.live.model_run();
    const std::string problem = model ? attn::model_program_problem(*model) : "";
    const bool can_emit = have_run && problem.empty();
    const auto explain = [&] {
        if (!problem.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", problem.c_str());
    };
    if (ImGui::MenuItem("Save window as PNG…")) dialog.open(FileAction::WindowPng);
    if (ImGui::MenuItem("Export trace (JSON)…", nullptr, false, have_run)) dialog.open(FileAction::TraceJson);
    if (ImGui::MenuItem("Export all stages (.npy/.csv)…", nullptr, false, have_run))
        dialog.open(FileAction::AllStages);
    widgets.record("menu_export_all");
    ImGui::Separator();
    // A module's program, or a GPT model's (the book's GPTModel on the tokens in view).
    if (ImGui::MenuItem("Copy as PyTorch", nullptr, false, can_emit)) {
        try {
            platform::copy_text(pytorch_program(app.live));
            app.classroom.last_export = FileOutcome{"clipboard", ""};
        } catch (const std::exception& e) {  // the file went between the check and the click
            app.classroom.last_export = FileOutcome{"clipboard", e.what()};
        }
    }
    widgets.record("menu_copy_pytorch");
    explain();
    if (ImGui::MenuItem("Save PyTorch as .py…", nullptr, false, can_emit)) dialog.open(FileAction::PythonFile);
    widgets.record("menu_save_py");  // window tests pick it
    explain();
    ImGui::Separator();
    if (ImGui::MenuItem("Open model…", "Ctrl+M")) dialog.open(FileAction::OpenModel);
    if (ImGui::MenuItem("Check my attention code…")) dialog.open(FileAction::CheckAttention);
    widgets.record("menu_check");
    ImGui::Separator();
    if (ImGui::MenuItem("Save session…", "Ctrl+S")) dialog.open(FileAction::SaveSession);
    if (ImGui::MenuItem("Open session…", "Ctrl+O")) dialog.open(FileAction::OpenSession);
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit = true;
    ImGui::EndMenu();
}

void lessons_menu(AppContext& app, WidgetRects& widgets) {
    if (!begin_menu("Lessons", "menu_lessons", widgets)) return;
    ViewState& c = app.classroom;
    for (size_t i = 0; i < c.library.lessons.size(); ++i) {
        const attn::Lesson& l = c.library.lessons[i];
        const std::string label = l.id + "  " + l.title;
        if (ImGui::MenuItem(label.c_str(), nullptr, c.in_lesson && c.lesson == static_cast<int>(i)))
            enter_step(c, app.live, static_cast<int>(i), 0);
    }
    // Lessons on a model no checkpoint of which can be shipped: greyed, with how to get it.
    for (const attn::Lesson& l : c.library.missing_model) {
        const std::string label = l.id + "  " + l.title;
        ImGui::MenuItem(label.c_str(), nullptr, false, false);
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", attn::missing_model_note(l.model).c_str());
        ImGui::SameLine();
        ImGui::TextDisabled("(needs %s)", l.model.c_str());
    }
    if (!c.library.errors.empty()) {
        ImGui::Separator();
        for (const std::string& e : c.library.errors)
            ImGui::TextColored(ui_color(ui_colors().error), "not loaded: %s", e.c_str());
    }
    if (c.library.lessons.empty() && c.library.errors.empty()) ImGui::TextDisabled("no lessons in %s",
                                                                                   attn::lessons_dir().c_str());
    ImGui::EndMenu();
}

void view_menu(AppContext& app, WidgetRects& widgets) {
    if (!begin_menu("View", "menu_view", widgets)) return;
    ViewState& c = app.classroom;
    ImGui::MenuItem("Presenter mode", "F5", &c.presenter);
    ImGui::MenuItem("Focus on one stage", "F", &c.focus);
    if (begin_menu("Colour map", "menu_colour_map", widgets)) {
        for (const ColorTheme& t : color_themes())
            if (ImGui::MenuItem(t.label, nullptr, c.theme == t.name)) c.theme = t.name;
        ImGui::EndMenu();
    }
    if (begin_menu("Compare", "menu_compare", widgets)) {
        for (const std::string& name : attn::comparison_names())
            if (ImGui::MenuItem(name.c_str(), nullptr, c.compare == attn::comparison_from_name(name))) {
                c.compare = attn::comparison_from_name(name);
                c.show_tab(ViewTab::Compare);
            }
        ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Head view (lines)")) c.show_tab(ViewTab::HeadLines);
    ImGui::MenuItem("Keyboard shortcuts", "?", &c.help);
    ImGui::EndMenu();
}

}  // namespace

void draw_menu_bar(AppContext& app, FileDialog& dialog, WidgetRects& widgets, bool& quit) {
    if (!ImGui::BeginMainMenuBar()) return;
    file_menu(app, dialog, widgets, quit);
    lessons_menu(app, widgets);
    view_menu(app, widgets);
    ImGui::EndMainMenuBar();
}

}  // namespace app
