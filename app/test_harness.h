#pragma once
// What tests and benchmarks ask of the window, beside its main loop: the state file
// (--state-out, with the pointer as the app saw it), the screenshot (--screenshot after
// --frames settled frames) and the frame benchmark (--bench-frames, --bench-changes).
// The frame calls it at fixed points; in a plain run each call does nothing.
#include <chrono>
#include <cstdint>
#include <optional>

#include "state/app_options.h"
#include "state/frame_bench.h"
#include "state/frame_report.h"
#include "state/state_file.h"

struct GLFWwindow;

namespace app {

class LiveRun;
class AppPanels;

class TestHarness {
public:
    explicit TestHarness(const AppOptions& opts);
    // Frames as fast as they come (a screenshot or a benchmark), never waiting for input.
    bool unthrottled() const { return screenshot_.has_value() || bench_.active(); }

    // Before the window is drawn: the pointer, as the state file reports it.
    void report_pointer(GLFWwindow* window, FrameReport& report);
    // While the window is drawn: the benchmark changes a control where a widget would.
    void change_a_control(LiveRun& live);
    // After the frame is rendered, before the swap: the screenshot once enough settled
    // frames were drawn. Returns false when writing it failed.
    bool after_render(GLFWwindow* window, int fb_w, int fb_h, bool settled);
    // After the swap: the benchmark's bookkeeping, then the state file. `shown_version`
    // is the run the frame before this one showed; `layout_changing` skips the state of
    // a frame whose layout the next ones replace (a click there would miss).
    void after_swap(GLFWwindow* window, const LiveRun& live, uint64_t shown_version, bool settled,
                    bool layout_changing, float ui_scale, const FrameReport& report, const AppPanels& panels);
    // When the window closes: the last state, written whether or not it changed.
    void at_exit(const LiveRun& live, float ui_scale, const FrameReport& report, const AppPanels& panels);

private:
    std::optional<std::string> screenshot_;
    int screenshot_frames_;
    std::optional<StateFile> state_;
    FrameBench bench_;
    bool change_pending_ = false;
    int settled_frames_ = 0;      // frames drawn with nothing left to recompute
    int layout_frames_left_ = 0;  // frames whose layout is not yet the settled one
    long clicks_ = 0;             // left-button presses, for the state file
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace app
