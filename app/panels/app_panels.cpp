#include "panels/app_panels.h"

#include <filesystem>

#include "graphics/gl.h"
#include <GLFW/glfw3.h>

#include "state/colormap.h"
#include "panels/export_actions.h"
#include "platform/platform.h"
#include "base/file_io.h"
#include "panels/menu_bar.h"
#include "graphics/screenshot.h"
#include "state/session_io.h"
#include "shortcuts.h"
#include "graphics/ui_colors.h"

namespace app {

namespace {

constexpr int kTourSettleFrames = 3;       // frames drawn after a step's run arrives (scrolling, tabs)
constexpr double kTourStepTimeout = 60.0;  // seconds before a step that never settles is reported

nlohmann::json outcome_json(const std::optional<FileOutcome>& o) {
    if (!o) return nullptr;
    return {{"path", o->path}, {"error", o->error.empty() ? nlohmann::json(nullptr) : nlohmann::json(o->error)}};
}

}  // namespace

AppPanels::AppPanels(const AppOptions& options, std::function<void()> wake)
    : compare(std::move(wake)), options_(options) {
    classroom.library = attn::load_lessons(attn::lessons_dir());
}

std::string AppPanels::start(LiveRun& live, float& ui_scale) {
    ViewState& c = classroom;
    c.theme = options_.colormap;
    c.presenter = options_.presenter;
    c.focus = c.presenter;  // from the first frame, so that it follows the first step
    if (!options_.compare.empty()) {
        c.compare = attn::comparison_from_name(options_.compare);
        c.show_tab(ViewTab::Compare);
    }
    if (!options_.tab.empty())
        c.show_tab(view_tab_from_name(options_.tab).value_or(ViewTab::Pipeline));  // checked by parse_app_options
    if (options_.session) c.last_session = load_session_file(*options_.session, live, c, ui_scale);
    if (options_.check) {  // a file that is not a record: exit 2 in one line, as for any bad flag
        try {
            c.check = open_check(*options_.check);
        } catch (const std::exception& e) {
            return std::string("--check: ") + e.what();
        }
        c.show_tab(ViewTab::Check);
    }
    if (!options_.lesson.empty()) {
        const int lesson = find_lesson(c, options_.lesson);
        if (lesson < 0) return "--lesson: " + why_no_lesson(c, options_.lesson);
        enter_step(c, live, lesson, options_.lesson_step);
    }
    if (options_.lesson_tour) {
        std::error_code ec;
        std::filesystem::create_directories(*options_.lesson_tour, ec);
        if (ec) return "--lesson-tour: cannot create " + *options_.lesson_tour + ": " + ec.message();
        if (c.library.lessons.empty()) return "--lesson-tour: no lessons in " + attn::lessons_dir();
        enter_tour_step(live);
    }
    return "";
}

void AppPanels::before_draw(LiveRun& live, float& ui_scale, HeatmapPainter& painter, WidgetRects& widgets,
                                bool& quit) {
    AppContext app{live, classroom, ui_scale, painter};
    handle_shortcuts(app, dialog_);
    // The theme before anything is drawn, and again after the View menu may change it.
    const auto use_theme = [&] {
        const ColorTheme* t = find_theme(classroom.theme);
        if (!t) return;
        if (t != &painter.theme()) painter.set_theme(*t);
        apply_ui_theme(*t);
    };
    use_theme();
    draw_menu_bar(app, dialog_, widgets, quit);
    use_theme();
    compare.update(classroom, live);
}

void AppPanels::after_draw(LiveRun& live, float& ui_scale, const HeatmapPainter& painter,
                               const DrawContext& ctx) {
    AppContext app{live, classroom, ui_scale, painter};
    if (std::optional<MatrixExportRequest> m = take_matrix_export()) dialog_.open(FileAction::Matrix, std::move(m));
    dialog_.draw(app);
    draw_help_overlay(classroom, ctx);
}

void AppPanels::after_render(GLFWwindow* window, LiveRun& live, float& ui_scale, const HeatmapPainter& painter,
                                 int fb_width, int fb_height, bool settled) {
    framebuffer_ = {fb_width, fb_height};
    // A PNG asked for from the menu is written a frame later, without the menu on it.
    if (png_next_frame_) {
        const bool ok = write_screenshot(*png_next_frame_, fb_width, fb_height);
        classroom.last_export = FileOutcome{*png_next_frame_, ok ? platform::deliver(*png_next_frame_)
                                                                 : "cannot write " + *png_next_frame_};
        png_next_frame_.reset();
    }
    if (classroom.window_png) {
        png_next_frame_ = classroom.window_png;
        classroom.window_png.reset();
    }
    if (!scripted_done_ && settled && live.run()) {
        scripted_done_ = true;
        AppContext app{live, classroom, ui_scale, painter};
        const auto script = [&](const std::optional<std::string>& path, FileAction action) {
            if (path && !run_file_action(action, *path, app).error.empty()) failed_ = true;
        };
        script(options_.export_all, FileAction::AllStages);
        script(options_.save_py, FileAction::PythonFile);
        script(options_.save_session, FileAction::SaveSession);
    }
    if (options_.lesson_tour && !tour_done_) tour_frame(live, fb_width, fb_height, settled);
    window_changed_ = presenter_.sync(window, classroom.presenter, ui_scale);
    // Presenter mode is laid out for the room: the stage on screen fills it (F: all of it).
    if (window_changed_) classroom.focus = classroom.presenter;
}

void AppPanels::enter_tour_step(LiveRun& live) {
    enter_step(classroom, live, tour_lesson_, tour_step_);
    tour_version_ = live.run_version();
    tour_frames_ = 0;
    tour_started_ = glfwGetTime();
}

void AppPanels::tour_frame(LiveRun& live, int fb_width, int fb_height, bool settled) {
    const bool arrived = live.run_version() != tour_version_ || !live.error().empty();
    const bool timed_out = glfwGetTime() - tour_started_ > kTourStepTimeout;
    if (!timed_out && !(settled && arrived && !busy() && ++tour_frames_ >= kTourSettleFrames)) return;
    const attn::Lesson& lesson = classroom.library.lessons[static_cast<size_t>(tour_lesson_)];
    const std::string base = lesson.id + "-step" + std::to_string(tour_step_ + 1);
    const std::string png = (std::filesystem::path(*options_.lesson_tour) / (base + ".png")).string();
    const bool shot = write_screenshot(png, fb_width, fb_height);
    nlohmann::json entry = state(live);
    entry["png"] = shot ? nlohmann::json(png) : nlohmann::json(nullptr);
    entry["error"] = timed_out             ? nlohmann::json("timed out")
                     : !live.error().empty() ? nlohmann::json(live.error())
                                                : entry["lesson"]["error"];
    if (!entry["error"].is_null() || !shot) failed_ = true;
    tour_log_.push_back(entry);

    if (++tour_step_ >= static_cast<int>(lesson.steps.size())) {
        tour_step_ = 0;
        ++tour_lesson_;
    }
    if (tour_lesson_ < static_cast<int>(classroom.library.lessons.size())) {
        enter_tour_step(live);
        return;
    }
    try {
        attn::write_file_atomically((std::filesystem::path(*options_.lesson_tour) / "tour.json").string(),
                                    tour_log_.dump(1) + "\n", /*durable=*/false);
    } catch (const attn::FileError&) {
        failed_ = true;
    }
    tour_done_ = true;
}

nlohmann::json AppPanels::state(const LiveRun& live) const {
    const ViewState& c = classroom;
    nlohmann::json j;
    nlohmann::json lesson = nullptr;
    if (const attn::Lesson* l = current_lesson(c)) {
        const attn::LessonStep& step = l->steps[static_cast<size_t>(c.step)];
        lesson = {{"id", l->id},
                  {"step", c.step + 1},
                  {"steps", l->steps.size()},
                  {"title", step.title},
                  {"active", c.in_lesson},
                  {"text", c.in_lesson && live.run() ? attn::render_step_text(step, *live.run()) : ""},
                  {"error", c.lesson_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.lesson_error)}};
    }
    j["lesson"] = lesson;
    j["lesson_errors"] = c.library.errors;
    j["lessons_missing_model"] = nlohmann::json::array();
    for (const attn::Lesson& l : c.library.missing_model)
        j["lessons_missing_model"].push_back({{"id", l.id}, {"model", l.model}});
    j["presenter"] = c.presenter;
    j["controls_hidden"] = c.presenter;
    j["focus"] = c.focus ? nlohmann::json(c.focus_stage) : nlohmann::json(nullptr);
    j["colormap"] = c.theme;
    j["compare"] = c.compare ? nlohmann::json(attn::comparison_name(*c.compare)) : nlohmann::json(nullptr);
    j["compare_error"] = compare.error().empty() ? nlohmann::json(nullptr) : nlohmann::json(compare.error());
    j["tab"] = view_tab_name(c.tab);
    j["help"] = c.help;
    j["framebuffer"] = framebuffer_;
    j["last_export"] = outcome_json(c.last_export);
    j["session"] = outcome_json(c.last_session);
    j["dialog"] = dialog_.state();
    return j;
}

}  // namespace app
