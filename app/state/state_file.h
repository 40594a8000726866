#pragma once
// The app's state as JSON for tests and scripts: the controls, the tokens on screen,
// the error shown, and where the widgets and heatmaps are. Written atomically
// (attn::write_file_atomically, without fsync) and only when it changed. `frame` counts
// the frames drawn, so it changes with each: a test that sees it advance knows the window
// answers. The browser's page publishes the same JSON on `window` (platform.h).
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "state/live_run.h"
#include "state/frame_report.h"

namespace app {

class StateFile {
public:
    // `publish` gets the JSON text whenever it changed (the app's: platform::publish_state).
    explicit StateFile(std::function<void(const std::string&)> publish) : publish_(std::move(publish)) {}
    // Writes unless the state equals what was written last; `force` writes anyway.
    // `classroom` holds the panels' entries (AppPanels::state), merged in.
    void update(const LiveRun& live, float ui_scale, const FrameReport& report, const nlohmann::json& classroom,
                bool force = false);

private:
    uint64_t frame_ = 0;
    std::function<void(const std::string&)> publish_;
    std::string last_;
};

}  // namespace app
