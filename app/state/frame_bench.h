#pragma once
// The frame-time benchmark behind --bench-frames and --bench-changes: frame times
// of the real window, and the time from a control change to the frame showing it.
#include <chrono>
#include <string>
#include <vector>

#include "state/control_values.h"

namespace app {

class FrameBench {
public:
    // `change` is what each change does: "seed" (a full recompute) or "dropout" (only
    // the stages after the weights).
    FrameBench(int frames, int changes, std::string change)
        : frames_wanted_(frames), changes_wanted_(changes), change_(std::move(change)) {}
    bool active() const { return frames_wanted_ > 0 || changes_wanted_ > 0; }
    bool done() const;

    // Call after each swapped frame that had nothing to recompute pending.
    void frame_drawn();
    // Call when a frame shows a run asked for at `requested`; returns true when the
    // benchmark wants the next change now.
    bool change_shown(std::chrono::steady_clock::time_point requested, double compute_ms);
    // Call for a frame drawn, after a change, still showing the view from before it.
    void old_view_drawn() { ++old_views_; }
    bool wants_change() const;
    void make_change(ControlValues& c) const;
    void print() const;  // to stdout

private:
    int frames_wanted_, changes_wanted_;
    std::string change_;
    std::vector<double> frame_ms_, latency_ms_, compute_ms_, old_views_per_change_;
    int old_views_ = 0;
    std::chrono::steady_clock::time_point last_frame_{};
    bool timing_started_ = false;
};

}  // namespace app
