#pragma once
// The app's state as JSON for tests and scripts: the controls, the tokens on screen,
// the error shown, and where the widgets and heatmaps are. Written atomically
// (attn::write_file_atomically, without fsync) and only when it changed. `frame` counts
// the frames drawn, so it changes with each: a test that sees it advance knows the window
// answers.
#include <string>

#include <nlohmann/json.hpp>

#include "state/live_run.h"
#include "state/frame_report.h"

namespace app {

class StateFile {
public:
    explicit StateFile(std::string path) : path_(std::move(path)) {}
    // Writes unless the state equals what was written last; `force` writes anyway.
    // `classroom` holds classroom mode's entries (ClassroomMode::state), merged in.
    void update(const LiveRun& live, float ui_scale, const FrameReport& report, const nlohmann::json& classroom,
                bool force = false);

private:
    uint64_t frame_ = 0;
    std::string path_;
    std::string last_;
};

}  // namespace app
