#pragma once
// The app's own flags, on top of every flag of attnscope-cli (which set the
// initial controls): test hooks, the window and the frame benchmark.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace app {

struct AppOptions {
    std::optional<std::string> screenshot;  // write the window as PNG after `frames` frames, then exit
    int frames = 5;
    std::optional<std::string> state_out;   // JSON state, rewritten whenever it changes
    float ui_scale = 1.0f;
    int selected_head = 0;                  // 0-based
    std::string show_stage;                 // scroll the pipeline to this stage at start
    int width = 1280, height = 800;
    int bench_frames = 0;   // draw this many frames as fast as possible and print their times
    int bench_changes = 0;  // change a control this many times and print change-to-view latency
    std::string bench_change = "seed";  // which control: seed | dropout

    // Classroom mode.
    std::string lesson;                     // start in this lesson (its id)
    int lesson_step = 0;                    // 0-based
    std::optional<std::string> lesson_tour; // screenshot every step of every lesson into this directory, then exit
    bool presenter = false;
    std::string colormap = "default";       // a colour theme
    std::string compare;                    // open this comparison
    std::string tab;                        // open this view tab: pipeline | compare | head-view
    std::optional<std::string> session;  // load this session file at start
    std::optional<std::string> check;    // open a recorded module's check (File > Check my attention code…)
    std::optional<std::string> revision;  // --revision: the branch, tag or commit of --model ORG/NAME
    // Once the first view is computed, do what the File menu would, then go on.
    std::optional<std::string> export_all, save_py, save_session;
};

struct OptionsError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws OptionsError for an unknown flag or a bad value (one line, for stderr).
AppOptions parse_app_options(const std::vector<std::string>& rest);
std::string app_usage();

}  // namespace app
