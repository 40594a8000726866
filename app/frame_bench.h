#pragma once
// The frame-time benchmark behind --bench-frames and --bench-changes: frame times
// of the real window, and the time from a control change to the frame showing it.
#include <chrono>
#include <string>
#include <vector>

namespace app {

class FrameBench {
public:
    FrameBench(int frames, int changes) : frames_wanted_(frames), changes_wanted_(changes) {}
    bool active() const { return frames_wanted_ > 0 || changes_wanted_ > 0; }
    bool done() const;

    // Call after each swapped frame that had nothing to recompute pending.
    void frame_drawn();
    // Call when a frame shows a run asked for at `requested`; returns true when the
    // benchmark wants the next change now.
    bool change_shown(std::chrono::steady_clock::time_point requested, double compute_ms);
    bool wants_change() const;
    void print() const;  // to stdout

private:
    int frames_wanted_, changes_wanted_;
    std::vector<double> frame_ms_, latency_ms_, compute_ms_;
    std::chrono::steady_clock::time_point last_frame_{};
    bool timing_started_ = false;
};

}  // namespace app
