#pragma once
// The app between two waits for input: one frame of the whole window. The desktop's
// main loop (main.cpp) calls frame() after each wait; everything the app holds across
// frames (the run and its worker, the heatmap textures, fonts, the panels of
// app_panels.h and the test harness) lives here.
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "graphics/fonts.h"
#include "graphics/heatmap.h"
#include "panels/app_panels.h"
#include "state/app_options.h"
#include "state/frame_report.h"
#include "state/live_run.h"
#include "test_harness.h"
#include "views/pipeline_view.h"

struct GLFWwindow;

namespace app {

class AppFrame {
public:
    // Loads the shaders and fonts and starts the first run; a failure is printed and
    // leaves the frame not ready (exit code 1; 2 for flags the panels refuse).
    AppFrame(GLFWwindow* window, const attn::Settings& settings, const AppOptions& options);
    bool ready() const { return painter_.has_value(); }
    // Draw frames without waiting for input (a screenshot or a benchmark).
    bool unthrottled() const { return harness_.unthrottled(); }
    bool computing() const { return live_.computing(); }

    // One frame. Returns true when the next frames should follow at once rather than
    // wait for input: a recompute is running, or this frame was held back for one.
    bool frame();
    // Whether the last frame() drew (not held back for a recompute): the frames a user sees.
    bool drew() const { return drew_; }
    // The browser's: how long a frame goes on with a run in steps (12 ms; the browser test
    // gives 0, one step a frame, so that it counts the frames a run takes on any machine).
    void set_work_slice(std::chrono::microseconds slice) { live_.set_work_slice(slice); }
    // When the window closes: the last state file; the program's exit code.
    int finish();
    // Why the frame is not ready: the one line printed (a missing shader, a bad --lesson).
    const std::string& start_error() const { return start_error_; }
    // The link's query that opens this view (state/link.h): the browser keeps its URL so.
    // Written again only when the controls or the view changed (a 1 MB text is not
    // escaped every frame).
    const std::string& link();

private:
    // LiveRun::update once the run's files are here; true when it asked. `take`: as LiveRun::update's.
    bool update_run(bool take = true);

    // What a link says besides the controls: the head shown and the classroom's view.
    using LinkKey = std::tuple<int, int, int, bool, bool, std::string, ViewTab, std::optional<attn::ComparisonKind>>;
    std::optional<std::pair<ControlValues, LinkKey>> link_for_;
    std::string link_;

    GLFWwindow* window_;
    AppOptions options_;
    int exit_code_ = 0;
    bool drew_ = false;
    std::string start_error_;
    std::optional<HeatmapPainter> painter_;
    FontSet fonts_;
    float ui_scale_;
    HeatmapCache cache_;
    ViewMemo memo_;
    LiveRun live_;
    AppPanels panels_;
    TestHarness harness_;
    FrameReport report_;
    uint64_t shown_version_ = 0;  // the run the last frame drawn showed
};

}  // namespace app
