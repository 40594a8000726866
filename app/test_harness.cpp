#include "test_harness.h"

#include <GLFW/glfw3.h>

#include "graphics/screenshot.h"
#include "imgui.h"
#include "keyboard.h"
#include "panels/app_panels.h"
#include "platform/platform.h"
#include "state/live_run.h"

namespace app {

namespace {
// A screenshot is taken after this long even if the run never settles (an error shown
// instead is a settled view; this is for a run that never ends).
constexpr double kScreenshotTimeout = 120.0;
}  // namespace

TestHarness::TestHarness(const AppOptions& opts)
    : screenshot_(opts.screenshot),
      screenshot_frames_(opts.frames),
      bench_(opts.bench_frames, opts.bench_changes, opts.bench_change) {
    if (opts.state_out)
        state_.emplace([path = *opts.state_out](const std::string& text) { platform::publish_state(path, text); });
}

void TestHarness::report_pointer(GLFWwindow* window, FrameReport& report) {
    const ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) ++clicks_;
    report.pointer = {ImGui::IsMousePosValid(), io.MousePos.x, io.MousePos.y, clicks_,
                      glfwGetWindowAttrib(window, GLFW_FOCUSED) != 0, keys_received()};
}

void TestHarness::change_a_control(LiveRun& live) {
    if (bench_.wants_change() && !change_pending_ && !live.computing()) {
        bench_.make_change(live.controls);
        change_pending_ = true;
    }
}

bool TestHarness::after_render(GLFWwindow* window, int fb_w, int fb_h, bool settled) {
    if (settled) ++settled_frames_;
    if (!screenshot_) return true;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (settled_frames_ < screenshot_frames_ && seconds <= kScreenshotTimeout) return true;
    glfwSetWindowShouldClose(window, GLFW_TRUE);
    return write_screenshot(*screenshot_, fb_w, fb_h);
}

void TestHarness::after_swap(GLFWwindow* window, const LiveRun& live, uint64_t shown_version, bool settled,
                             bool layout_changing, float ui_scale, const FrameReport& report,
                             const AppPanels& panels) {
    if (bench_.active()) {
        if (bench_.wants_change() || change_pending_) {
            if (change_pending_ && live.run_version() != shown_version && settled) {
                bench_.change_shown(live.run_requested_at(), live.last_compute_ms());
                change_pending_ = false;
            } else if (change_pending_) {
                bench_.old_view_drawn();
            }
        } else if (settled) {
            bench_.frame_drawn();
        }
        if (bench_.done()) {
            bench_.print();
            glfwSetWindowShouldClose(window, GLFW_TRUE);
        }
    }
    // A frame drawn just before presenter mode or the UI scale changed shows a layout the
    // next frames replace (the new size and type first, then Dear ImGui's work area below
    // the menu bar). The state file skips them, so that no widget is reported where it
    // will not be: a click there would miss.
    if (layout_changing) layout_frames_left_ = 2;
    if (layout_frames_left_ > 0) {
        --layout_frames_left_;
        glfwPostEmptyEvent();  // draw those frames now
    } else if (state_) {
        state_->update(live, ui_scale, report, panels.state(live));
    }
}

void TestHarness::at_exit(const LiveRun& live, float ui_scale, const FrameReport& report,
                          const AppPanels& panels) {
    if (state_) state_->update(live, ui_scale, report, panels.state(live), true);
}

}  // namespace app
