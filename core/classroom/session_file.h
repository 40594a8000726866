#pragma once
// A saved session: every control (attn::Settings), where the student is in a lesson,
// and the app's own view state as an opaque JSON object. One small JSON file:
//   {"format": "attnscope-session", "version": 1,
//    "settings": {"text": ..., "variant": ..., "heads": ..., ...},
//    "lesson": {"id": "3.4.1", "step": 2} or null,
//    "ui": {...whatever the app stores: selected head, ui scale, presenter mode...}}
// Loading turns "settings" into CLI flags and runs them through parse_settings, so the
// range rules are the CLI's, from the settings table (setting_table.h). Settings the
// variant does not take are kept, as the app's greyed-out controls keep them.
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "base/user_error.h"
#include "settings/settings.h"

namespace attn {

// One line: the file and why it was refused or could not be written.
struct SessionError : UserError {
    using UserError::UserError;
};

struct LessonPosition {
    std::string lesson_id;  // Lesson::id
    int step = 0;           // counted from 0
};

struct SavedSession {
    Settings settings;
    std::optional<LessonPosition> lesson;           // none: the student is playing freely
    nlohmann::json ui = nlohmann::json::object();   // the app's; saved and loaded as is
};

// The "settings" object: every row of the settings table by its key, null for an unset
// optional. The app's state file writes the same.
nlohmann::json settings_json(const Settings& s);
// The file's text (pretty-printed JSON). Throws SessionError for text that is not UTF-8.
std::string session_json(const SavedSession& session);
// Parses and checks a session; `source` names it in messages. Throws SessionError.
SavedSession parse_session(const std::string& json_text, const std::string& source);

// Writes through write_file_atomically (file_io.h), durably: a temporary file in the
// same directory, fsynced and renamed over `path`, then the directory fsynced: a crash or
// a full disk leaves the old file or the new one, never half of one. Throws SessionError
// "PATH: cannot save: <why>".
void save_session(const std::string& path, const SavedSession& session);
// Throws SessionError for a missing, damaged, foreign, newer or out-of-range file.
SavedSession load_session(const std::string& path);

}  // namespace attn
