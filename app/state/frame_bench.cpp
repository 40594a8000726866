#include "state/frame_bench.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace app {

namespace {

void print_stats(const char* what, std::vector<double> v) {
    if (v.empty()) return;
    std::sort(v.begin(), v.end());
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    std::printf("%s: n=%zu median=%.2f ms p95=%.2f ms max=%.2f ms mean=%.2f ms\n", what, v.size(), v[v.size() / 2],
                v[std::min(v.size() - 1, v.size() * 95 / 100)], v.back(), mean);
}

}  // namespace

bool FrameBench::done() const {
    return static_cast<int>(frame_ms_.size()) >= frames_wanted_ &&
           static_cast<int>(latency_ms_.size()) >= changes_wanted_;
}

void FrameBench::frame_drawn() {
    const auto now = std::chrono::steady_clock::now();
    // The first timed frame only starts the clock.
    if (timing_started_ && static_cast<int>(frame_ms_.size()) < frames_wanted_)
        frame_ms_.push_back(std::chrono::duration<double, std::milli>(now - last_frame_).count());
    timing_started_ = true;
    last_frame_ = now;
}

bool FrameBench::wants_change() const {
    return static_cast<int>(frame_ms_.size()) >= frames_wanted_ &&
           static_cast<int>(latency_ms_.size()) < changes_wanted_;
}

void FrameBench::make_change(ControlValues& c) const {
    if (change_ == "dropout")
        c.attention.dropout = c.attention.dropout < 0.15 ? 0.2 : 0.1;
    else
        c.attention.seed = (c.attention.seed + 1) % 1000;
}

bool FrameBench::change_shown(std::chrono::steady_clock::time_point requested, double compute_ms) {
    latency_ms_.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - requested).count());
    compute_ms_.push_back(compute_ms);
    old_views_per_change_.push_back(old_views_);
    old_views_ = 0;
    return wants_change();
}

void FrameBench::print() const {
    print_stats("frame time", frame_ms_);
    print_stats("change to redrawn view", latency_ms_);
    print_stats("recompute (worker)", compute_ms_);
    if (!old_views_per_change_.empty()) {
        std::vector<double> v = old_views_per_change_;
        std::sort(v.begin(), v.end());
        std::printf("frames drawn with the old view before the new one: n=%zu median=%.0f max=%.0f\n", v.size(),
                    v[v.size() / 2], v.back());
    }
    std::fflush(stdout);
}

}  // namespace app
