#pragma once
// The File menu's actions and the small modal that asks where: a path field with a
// default in the current directory, OK / Cancel, and the error in place when the
// action fails (the dialog stays open so the path can be fixed).
#include <array>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "panels/app_context.h"
#include "views/matrix_widget.h"

namespace app {

enum class FileAction { WindowPng, TraceJson, AllStages, PythonFile, SaveSession, OpenSession, OpenModel, CheckAttention, Matrix };

// Does the action now. Window PNGs are only scheduled (ViewState::window_png): the
// window is read after it is drawn. Records the outcome in last_export / last_session.
FileOutcome run_file_action(FileAction action, const std::string& path, AppContext& app,
                            const std::optional<MatrixExportRequest>& matrix = std::nullopt);

class FileDialog {
public:
    void open(FileAction action, std::optional<MatrixExportRequest> matrix = std::nullopt);
    void draw(AppContext& app);  // once a frame; a no-op while closed
    // For the state file: null while closed, else its title, path, error and whether the
    // path field has the keyboard (it takes it a frame or two after opening or a failure).
    nlohmann::json state() const;

private:
    std::optional<FileAction> action_;
    std::optional<std::array<float, 4>> choose_rect_;  // the browser's "Choose a file…" button, for tests
    std::optional<MatrixExportRequest> matrix_;
    std::string path_;
    std::string error_;
    bool open_now_ = false;
    bool refocus_ = false;  // the action failed: the path field takes the keys again
    bool typing_ = false;   // the path field had the keyboard in the last frame
};

}  // namespace app
