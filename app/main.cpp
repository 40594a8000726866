// attnscope: type a sentence, see every stage of its attention.
// The main loop is Dear ImGui's usual one; the window redraws when something
// happens (input, a finished recompute) rather than spinning, so a background
// recompute gets the CPU.
#include <cfloat>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "graphics/gl.h"
#include <GLFW/glfw3.h>

#include "state/app_options.h"
#include "base/data_dir.h"
#include "base/user_error.h"
#include "graphics/driver_pinning.h"
#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "state/frame_bench.h"
#include "imgui.h"
#include "keyboard.h"
#include "numerics/memory.h"
#include "graphics/screenshot.h"
#include "state/state_file.h"
#include "ui.h"
#include "base/version.h"

namespace {

constexpr double kActiveSeconds = 0.3;   // keep drawing this long after any event
constexpr double kIdleWait = 0.5;        // redraw at least this often when idle
constexpr double kComputingWait = 0.1;   // redraw at least this often while the worker runs
constexpr double kScreenshotTimeout = 120.0;
// A recompute that fits in a frame at 60 Hz is waited for and shown by the next frame drawn.
constexpr std::chrono::microseconds kFrameBudget{16'667};

struct Startup {
    attn::Settings settings;
    app::AppOptions options;
};

// Exits 2 with one line on stderr for a bad command line, as attnscope-cli does.
std::optional<Startup> parse_command_line(int argc, char** argv, int& exit_code) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.size() == 1 && args[0] == "--version") {
            std::cout << attn::version_text("attnscope");
            exit_code = 0;
            return std::nullopt;
        }
        attn::ParsedArgs parsed = attn::parse_settings(args);
        if (parsed.help) {
            std::cout << app::app_usage() << attn::settings_usage();
            exit_code = 0;
            return std::nullopt;
        }
        app::AppOptions options = app::parse_app_options(parsed.rest);
        attn::Settings& s = parsed.settings;
        // --head is the settings table's for a model (0-based, as L.H); for the chapter 3
        // module it is the app's own head to show, 1-based as the head strip numbers them.
        if (s.head && !s.model) {
            if (*s.head < 1 || *s.head > 64) throw app::OptionsError("--head must be between 1 and 64, got " + std::to_string(*s.head));
            options.selected_head = *s.head - 1;
            s.head.reset();
        } else if (s.head) {
            options.selected_head = *s.head;
        }
        return Startup{s, options};
    } catch (const std::exception& e) {
        std::cerr << "attnscope: " << e.what() << "\n";
        exit_code = 2;
        return std::nullopt;
    }
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
    int exit_code = 0;
    const std::optional<Startup> startup = parse_command_line(argc, argv, exit_code);
    if (!startup) return exit_code;
    const app::AppOptions& opts = startup->options;
    try {
        attn::data_dir();  // before a window opens: a missing data folder is one line
    } catch (const attn::UserError& e) {
        std::cerr << "attnscope: " << e.what() << "\n";
        return 2;
    }
    attn::keep_freed_memory_mapped();  // a recompute reuses the last one's memory, without page faults

    glfwSetErrorCallback([](int, const char* what) { std::cerr << "attnscope: GLFW: " << what << "\n"; });
    if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")) {
        std::cerr << "attnscope: no display to open the window on (DISPLAY is not set): start it from a desktop "
                     "session, or on a machine without one under a virtual display: xvfb-run -a scripts/run.sh\n";
        return 1;
    }
    if (!glfwInit()) return 1;
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    GLFWwindow* window =
        glfwCreateWindow(opts.width, opts.height, "attnscope: attention, stage by stage", nullptr, nullptr);
    if (!window) {
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(window);
    app::pin_gl_driver();
    const bool unthrottled = opts.screenshot || opts.bench_frames || opts.bench_changes;
    glfwSwapInterval(unthrottled ? 0 : 1);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to remember
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    app::install_keyboard(window);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    ImGui_ImplOpenGL3_CreateDeviceObjects();  // so that FontSet can replace the font texture

    {  // GL objects below must be gone before the context is
        std::optional<app::HeatmapPainter> painter;
        app::FontSet fonts;
        float ui_scale = opts.ui_scale;
        try {
            const std::string shaders = attn::data_path("shaders");
            painter.emplace(shaders, app::ColorMaps::load(shaders + "/colormaps.txt"));
            fonts.ensure_scale(ui_scale);
        } catch (const std::exception& e) {
            std::cerr << "attnscope: " << e.what() << "\n";
            exit_code = 1;
        }
        app::HeatmapCache cache;
        app::ViewMemo memo;
        app::LiveRun live(startup->settings, [] { glfwPostEmptyEvent(); });
        live.select_head(opts.selected_head);
        live.scroll_to_stage = opts.show_stage;
        app::ClassroomMode classroom(opts, [] { glfwPostEmptyEvent(); });
        if (const std::string bad = classroom.start(live, ui_scale); !bad.empty()) {
            std::cerr << "attnscope: " << bad << "\n";
            painter.reset();
            exit_code = 2;
        }
        std::optional<app::StateFile> state;
        if (opts.state_out) state.emplace(*opts.state_out);
        app::FrameBench bench(opts.bench_frames, opts.bench_changes, opts.bench_change);
        app::FrameReport report;
        int layout_frames_left = 0;  // frames whose layout is not yet the settled one
        int settled_frames = 0;  // frames drawn with nothing left to recompute
        uint64_t shown_version = 0;
        bool change_pending = false;
        long clicks = 0;  // left-button presses, for the state file
        const auto started = std::chrono::steady_clock::now();
        auto last_event = started;

        while (painter && !glfwWindowShouldClose(window)) {
            app::release_held_keys(window);  // the last frame saw them down
            if (live.computing()) {
                // Under software OpenGL a frame costs both cores, which the recompute needs
                // more than the unchanged view needs redrawing: draw on input, when the
                // worker's result wakes the loop, or at 10 frames a second.
                glfwWaitEventsTimeout(kComputingWait);
            } else if (unthrottled || seconds_since(last_event) < kActiveSeconds) {
                glfwPollEvents();
            } else {
                const auto before = std::chrono::steady_clock::now();
                glfwWaitEventsTimeout(kIdleWait);
                if (seconds_since(before) < kIdleWait * 0.9) last_event = std::chrono::steady_clock::now();
            }

            fonts.ensure_scale(ui_scale);
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            // A screenshot shows the state the flags set, not whatever the pointer hovers.
            if (opts.screenshot || opts.lesson_tour) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
            ImGui::NewFrame();
            const ImGuiIO& io = ImGui::GetIO();
            bool quit = io.KeyCtrl && ImGui::IsKeyDown(GLFW_KEY_Q);
            bool asked = live.update();
            report = app::FrameReport{};
            if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) ++clicks;
            report.pointer = {ImGui::IsMousePosValid(), io.MousePos.x, io.MousePos.y, clicks,
                              glfwGetWindowAttrib(window, GLFW_FOCUSED) != 0};
            classroom.before_draw(live, ui_scale, *painter, report.widgets, quit);
            if (quit) glfwSetWindowShouldClose(window, GLFW_TRUE);
            const app::DrawContext ctx{*painter, cache, fonts.fonts(), fonts.scale(), live.run_version()};
            app::draw_window(live, ui_scale, ctx, memo, report, classroom);
            classroom.after_draw(live, ui_scale, *painter, ctx);
            app::close_popups_on_escape();
            report.popup_open = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
            // The benchmark changes a control where a widget would: while the frame is drawn.
            if (bench.wants_change() && !change_pending && !live.computing()) {
                bench.make_change(live.controls);
                change_pending = true;
            }
            asked |= live.update();  // a control changed this frame starts its recompute now
            ImGui::Render();
            cache.end_frame();
            // This frame shows the run from before the change. Drawing it would take the
            // cores the recompute needs (software OpenGL draws on the CPU), so when the
            // recompute fits in a frame it is not drawn: the next frame shows the new run.
            // A frame that brings a new run is always drawn, so a slider dragged without
            // pause still shows every run that finished.
            if (asked && live.run_version() == shown_version && live.wait_for_run(kFrameBudget)) {
                last_event = std::chrono::steady_clock::now();
                continue;
            }

            int fb_w = 0, fb_h = 0;
            glfwGetFramebufferSize(window, &fb_w, &fb_h);
            glViewport(0, 0, fb_w, fb_h);
            glClearColor(1.0f, 1.0f, 1.0f, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

            const bool settled =
                !live.computing() && !classroom.busy() && (live.run() || !live.error().empty());
            if (settled) ++settled_frames;
            if (opts.screenshot && (settled_frames >= opts.frames || seconds_since(started) > kScreenshotTimeout)) {
                if (!app::write_screenshot(*opts.screenshot, fb_w, fb_h)) exit_code = 1;
                glfwSetWindowShouldClose(window, GLFW_TRUE);
            }
            classroom.after_render(window, live, ui_scale, *painter, fb_w, fb_h, settled);
            if (classroom.wants_exit()) glfwSetWindowShouldClose(window, GLFW_TRUE);
            glfwSwapBuffers(window);

            if (bench.active()) {
                if (bench.wants_change() || change_pending) {
                    if (change_pending && live.run_version() != shown_version && settled) {
                        bench.change_shown(live.run_requested_at(), live.last_compute_ms());
                        change_pending = false;
                    } else if (change_pending) {
                        bench.old_view_drawn();
                    }
                } else if (settled) {
                    bench.frame_drawn();
                }
                if (bench.done()) {
                    bench.print();
                    glfwSetWindowShouldClose(window, GLFW_TRUE);
                }
            }
            shown_version = live.run_version();
            if (live.computing()) last_event = std::chrono::steady_clock::now();
            // A frame drawn just before presenter mode or the UI scale changed shows a
            // layout the next frames replace (the new size and type first, then Dear
            // ImGui's work area below the menu bar). The state file skips them, so that
            // no widget is reported where it will not be: a click there would miss.
            if (classroom.window_changed() || ui_scale != fonts.scale()) layout_frames_left = 2;
            if (layout_frames_left > 0) {
                --layout_frames_left;
                glfwPostEmptyEvent();  // draw those frames now
            } else if (state) {
                state->update(live, ui_scale, report, classroom.state(live));
            }
        }
        if (state) state->update(live, ui_scale, report, classroom.state(live), true);
        if (classroom.failed()) exit_code = 1;
    }

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return exit_code;
}
