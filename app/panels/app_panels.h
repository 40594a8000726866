#pragma once
// The panels around the pipeline as the frame sees them: the menus and dialogs, exports
// and sessions, lessons and their tour, presenter mode, the colour theme, the view tabs
// (compare, the data sampler, the KV cache, tiled softmax), window screenshots, with the
// hooks each frame needs (before drawing, after drawing, after rendering) and the flags
// that script them.
#include <array>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "state/app_options.h"
#include "state/view_state.h"
#include "views/compare_view.h"
#include "views/head_lines_view.h"
#include "views/kv_cache_view.h"
#include "views/data_sampler_view.h"
#include "views/tiled_softmax_view.h"
#include "panels/file_dialog.h"
#include "state/lesson_player.h"
#include "panels/presenter.h"
#include "state/widget_rects.h"

struct GLFWwindow;

namespace app {

class AppPanels {
public:
    AppPanels(const AppOptions& options, std::function<void()> wake);

    // Applies the classroom flags. Returns a one-line error for a bad --lesson (the
    // app then exits 2, as for any bad flag).
    std::string start(LiveRun& live, float& ui_scale);

    // Shortcuts, the menu bar, the colour theme and the comparison's runs: before the window.
    void before_draw(LiveRun& live, float& ui_scale, HeatmapPainter& painter, WidgetRects& widgets, bool& quit);
    // Dialogs and overlays, on top of the window.
    void after_draw(LiveRun& live, float& ui_scale, const HeatmapPainter& painter, const DrawContext& ctx);
    // After the frame is rendered, before the swap: window PNGs, the flags' exports,
    // the lesson tour and the presenter window. `settled`: the view shows its settings.
    void after_render(GLFWwindow* window, LiveRun& live, float& ui_scale, const HeatmapPainter& painter,
                      int fb_width, int fb_height, bool settled);

    bool busy() const { return compare.computing(); }  // a comparison is still computing
    bool wants_exit() const { return tour_done_; }
    // The last after_render entered or left presenter mode: the frame just drawn has a
    // layout (window size, scale) that the next frame replaces.
    bool window_changed() const { return window_changed_; }
    bool failed() const { return failed_; }  // a scripted export or the tour failed
    // lesson, presenter, colormap, compare, last_export, session: for the state file.
    nlohmann::json state(const LiveRun& live) const;

    ViewState classroom;
    CompareView compare;
    DataSamplerView data_sampler;  // chapter 2\'s sampling view: its sliders and pairs
    KvCacheView kv_cache;              // the KV cache tab's stepper and model sizes
    TiledSoftmaxView tiled;            // the tiled softmax tab's stepper
    HeadView head_view;                // the head view's layer, heads switched on, thumbnails
    StepText step_text;

private:
    bool window_changed_ = false;
    void tour_frame(LiveRun& live, int fb_width, int fb_height, bool settled);
    void enter_tour_step(LiveRun& live);

    AppOptions options_;
    FileDialog dialog_;
    PresenterWindow presenter_;
    std::array<int, 2> framebuffer_{0, 0};       // the window's size in pixels, for the state file
    std::optional<std::string> png_next_frame_;  // asked for this frame, written after the next one
    bool scripted_done_ = false;
    bool failed_ = false;

    // --lesson-tour
    int tour_lesson_ = 0, tour_step_ = 0, tour_frames_ = 0;
    uint64_t tour_version_ = 0;
    double tour_started_ = 0.0;
    nlohmann::json tour_log_ = nlohmann::json::array();
    bool tour_done_ = false;
};

}  // namespace app
