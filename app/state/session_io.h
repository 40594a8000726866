#pragma once
// Session files through core/session_file: every setting, the lesson position and the
// app's extras (selected head, UI scale, presenter mode, colour theme, open comparison).
// A file that cannot be read changes nothing on screen.
#include <string>

#include "state/view_state.h"
#include "state/live_run.h"

namespace app {

FileOutcome save_session_file(const std::string& path, const LiveRun& live, const ViewState& c, float ui_scale);
FileOutcome load_session_file(const std::string& path, LiveRun& live, ViewState& c, float& ui_scale);

}  // namespace app
