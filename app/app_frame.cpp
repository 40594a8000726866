#include "app_frame.h"

#include <cfloat>
#include <chrono>
#include <iostream>

#include "graphics/gl.h"
#include <GLFW/glfw3.h>

#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "base/data_dir.h"
#include "imgui.h"
#include "keyboard.h"
#include "platform/platform.h"
#include "state/link.h"
#include "ui.h"

namespace app {

namespace {
// A recompute that fits in a frame at 60 Hz is waited for and shown by the next frame drawn.
constexpr std::chrono::microseconds kFrameBudget{16'667};
}  // namespace

AppFrame::AppFrame(GLFWwindow* window, const attn::Settings& settings, const AppOptions& options)
    : window_(window),
      options_(options),
      ui_scale_(options.ui_scale),
      live_(settings, [] { glfwPostEmptyEvent(); }),
      panels_(options_, [] { glfwPostEmptyEvent(); }),
      harness_(options_) {
    try {
        const std::string shaders = attn::data_path("shaders");
        painter_.emplace(shaders, ColorMaps::load(shaders + "/colormaps.txt"));
        fonts_.ensure_scale(ui_scale_);
    } catch (const std::exception& e) {
        start_error_ = e.what();
        std::cerr << "attnscope: " << start_error_ << "\n";
        painter_.reset();
        exit_code_ = 1;
    }
    live_.select_head(options_.selected_head);
    live_.scroll_to_stage = options_.show_stage;
    if (const std::string bad = ready() ? panels_.start(live_, ui_scale_) : ""; !bad.empty()) {
        start_error_ = bad;
        std::cerr << "attnscope: " << bad << "\n";
        painter_.reset();
        exit_code_ = 2;
    }
}

bool AppFrame::frame() {
    fonts_.ensure_scale(ui_scale_);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    // A screenshot shows the state the flags set, not whatever the pointer hovers.
    if (options_.screenshot || options_.lesson_tour) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    ImGui::NewFrame();
    bool quit = ImGui::GetIO().KeyCtrl && ImGui::IsKeyDown(GLFW_KEY_Q);
    bool asked = update_run();
    report_ = FrameReport{};
    harness_.report_pointer(window_, report_);
    panels_.before_draw(live_, ui_scale_, *painter_, report_.widgets, quit);
    if (quit) glfwSetWindowShouldClose(window_, GLFW_TRUE);
    const DrawContext ctx{*painter_, cache_, fonts_.fonts(), fonts_.scale(), live_.run_version()};
    draw_window(live_, ui_scale_, ctx, memo_, report_, panels_);
    panels_.after_draw(live_, ui_scale_, *painter_, ctx);
    close_popups_on_escape();
    report_.popup_open = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
    harness_.change_a_control(live_);
    // A control changed this frame starts its recompute now (the run is taken, and the
    // page's worker computes, once a frame: at its start).
    asked |= update_run(/*take=*/false);
    ImGui::Render();
    cache_.end_frame();
    // Input still held back (keyboard.h): this frame is one of those that let it through,
    // so it is neither drawn nor waits for its run, and the next follows at once. Drawn,
    // each waited up to a frame for the run its characters asked for and shared the cores
    // with it: typed text drained at 20 to 35 characters a second, so a burst kept arriving,
    // and starting runs, for a minute after the last key, and Escape or F5 pressed
    // meanwhile waited behind it (issue 58).
    if (input_held_back()) {
        release_held_keys(window_);
        drew_ = false;
        return true;
    }
    // This frame shows the run from before the change. Drawing it would take the cores
    // the recompute needs (software OpenGL draws on the CPU), so when the recompute fits
    // in a frame it is not drawn: the next frame shows the new run. A frame that brings a
    // new run is always drawn, so a slider dragged without pause still shows every run
    // that finished.
    if (asked && live_.run_version() == shown_version_ && live_.wait_for_run(kFrameBudget)) {
        release_held_keys(window_);  // this frame saw them down
        drew_ = false;
        return true;
    }

    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window_, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(1.0f, 1.0f, 1.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    const bool settled = !live_.computing() && !panels_.busy() && (live_.run() || !live_.error().empty());
    if (!harness_.after_render(window_, fb_w, fb_h, settled)) exit_code_ = 1;
    panels_.after_render(window_, live_, ui_scale_, *painter_, fb_w, fb_h, settled);
    if (panels_.wants_exit()) glfwSetWindowShouldClose(window_, GLFW_TRUE);
    glfwSwapBuffers(window_);

    const bool layout_changing = panels_.window_changed() || ui_scale_ != fonts_.scale();
    harness_.after_swap(window_, live_, shown_version_, settled, layout_changing, ui_scale_, report_, panels_);
    shown_version_ = live_.run_version();
    drew_ = true;
    release_held_keys(window_);  // this frame saw them down
    return live_.computing();
}

bool AppFrame::update_run(bool take) {
    // A model whose files are still downloading (the browser page's shipped model) is not
    // asked for until they are here.
    if (live_.controls.model)  // --revision's snapshot, once it is here: the controls name its folder
        if (std::optional<std::string> folder = platform::pinned_folder(*live_.controls.model)) live_.controls.model = folder;
    std::string download_error;
    std::string downloading = platform::fetch_model(live_.controls.model, download_error);
    live_.files_pending(std::move(downloading), std::move(download_error));
    return live_.update(take);
}

const std::string& AppFrame::link() {
    const ViewState& c = panels_.classroom;
    LinkKey key{live_.shown_head(), c.lesson, c.step, c.in_lesson, c.presenter, c.theme, c.tab, c.compare};
    if (!link_for_ || !(link_for_->first == live_.controls) || link_for_->second != key) {
        link_ = link_query(live_.settings(), LinkView{live_.shown_head(), &c});
        link_for_.emplace(live_.controls, std::move(key));
    }
    return link_;
}

int AppFrame::finish() {
    harness_.at_exit(live_, ui_scale_, report_, panels_);  // also after a failed start
    if (panels_.failed()) exit_code_ = 1;
    return exit_code_;
}

}  // namespace app
