// Session files (see session_file.h): JSON out, JSON -> CLI flags -> Settings in.
#include "classroom/session_file.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "base/file_io.h"

namespace attn {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "attnscope-session";
constexpr int kVersion = 1;
constexpr std::uintmax_t kMaxBytes = 1 << 20;
constexpr int kMaxLessonStep = 10000;

json value_json(const SettingValue& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    if (const auto* i = std::get_if<int64_t>(&v)) return *i;
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* t = std::get_if<std::string>(&v)) return *t;
    return nullptr;
}

}  // namespace

json settings_json(const Settings& s) {
    json j = json::object();
    for (const SettingRow& row : setting_rows()) j[row.key] = value_json(row.get(s));
    return j;
}

namespace {

const char* type_name(const json& j) {
    if (j.is_string()) return "text";
    if (j.is_boolean()) return "true/false";
    if (j.is_number()) return "a number";
    if (j.is_null()) return "null";
    return j.is_array() ? "a list" : "an object";
}

class Checker {
public:
    explicit Checker(std::string source) : source_(std::move(source)) {}
    [[noreturn]] void fail(const std::string& why) const { throw SessionError(source_ + ": " + why); }

    void only_keys(const json& j, const std::vector<std::string>& keys, const std::string& where) const {
        for (const auto& [key, value] : j.items())
            if (std::find(keys.begin(), keys.end(), key) == keys.end())
                fail("unknown field \"" + key + "\"" + where + " (a newer or foreign file?)");
    }

    // The flags a settings field stands for, its type checked here, its range by the CLI parser.
    void add_flags(const SettingRow& row, const json& v, std::vector<std::string>& flags) const {
        const auto wrong = [&](const char* want) {
            fail(std::string("\"") + row.key + "\" must be " + want + ", got " + type_name(v));
        };
        const bool optional = row.type == SettingType::OptText || row.type == SettingType::OptInt;
        if (optional && v.is_null()) return;
        switch (row.type) {
        case SettingType::Text:
        case SettingType::OptText:
        case SettingType::Choice:
            if (!v.is_string()) wrong(optional ? "text or null" : "text");
            flags.insert(flags.end(), {row.flag, v.get<std::string>()});
            break;
        case SettingType::Int:
        case SettingType::OptInt:
            if (!v.is_number_integer()) wrong(optional ? "a whole number or null" : "a whole number");
            flags.insert(flags.end(), {row.flag, v.dump()});
            break;
        case SettingType::Real:
            if (!v.is_number()) wrong("a number");
            flags.insert(flags.end(), {row.flag, v.dump()});  // shortest text that reads back exactly
            break;
        case SettingType::Switch:
        case SettingType::SwitchOff:
            if (!v.is_boolean()) wrong("true or false");
            if (v.get<bool>() == (row.type == SettingType::Switch)) flags.push_back(row.flag);
            break;
        }
    }

private:
    std::string source_;
};

// What a JSON object that is not a session most likely is, for the message.
std::string foreign_kind(const json& j) {
    if (j.contains("format") && j["format"].is_string()) {
        const std::string format = j["format"].get<std::string>();
        if (format == "attnscope-lesson") return "an attnscope lesson, not a session";
        return "a \"" + format + "\" file, not an attnscope session";
    }
    if (j.contains("variant") && j.contains("heads")) return "an attnscope-cli trace, not a session";
    return "JSON but not an attnscope session (no \"format\": \"attnscope-session\")";
}

Settings parse_settings_json(const json& j, const Checker& check) {
    if (!j.is_object()) check.fail("\"settings\" must be an object");
    std::vector<std::string> keys;
    for (const SettingRow& row : setting_rows()) keys.push_back(row.key);
    check.only_keys(j, keys, " in \"settings\"");
    std::vector<std::string> flags;
    for (const SettingRow& row : setting_rows())
        if (j.contains(row.key)) check.add_flags(row, j[row.key], flags);  // a missing field keeps its default
    try {
        // Values of greyed-out controls (heads while on causal) are kept: the app
        // restores its controls as they were, and leaves them out of the run.
        return parse_settings(flags).settings;
    } catch (const ArgsError& e) {
        check.fail(std::string("a setting is out of range: ") + e.what());
    }
}

}  // namespace

std::string session_json(const SavedSession& session) {
    json j = {{"format", kFormat}, {"version", kVersion}, {"settings", settings_json(session.settings)}};
    j["lesson"] = session.lesson ? json{{"id", session.lesson->lesson_id}, {"step", session.lesson->step}} : json(nullptr);
    j["ui"] = session.ui.is_object() ? session.ui : json::object();
    try {
        return j.dump(2);
    } catch (const json::type_error&) {
        throw SessionError("the session's text is not valid UTF-8");
    }
}

SavedSession parse_session(const std::string& text, const std::string& source) {
    const Checker check(source);
    if (text.empty()) check.fail("the file is empty");
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        if (e.byte >= text.size()) check.fail("the file is truncated (its JSON ends early)");
        check.fail("the file is damaged or not JSON (byte " + std::to_string(e.byte) + ")");
    } catch (const json::out_of_range&) {  // found by fuzzing: a number like 1.5e300536
        check.fail("the file holds a number too large for a double");
    }
    if (!j.is_object()) check.fail("the file is JSON but not an attnscope session");
    if (!j.contains("format") || j["format"] != kFormat) check.fail("the file is " + foreign_kind(j));
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int64_t>() < 1)
        check.fail("the session has no valid \"version\"");
    if (j["version"].get<int64_t>() != kVersion)
        check.fail("the session is version " + j["version"].dump() + "; this attnscope reads version " +
                   std::to_string(kVersion));
    check.only_keys(j, {"format", "version", "settings", "lesson", "ui"}, "");

    SavedSession session;
    if (j.contains("settings")) session.settings = parse_settings_json(j["settings"], check);
    if (j.contains("lesson") && !j["lesson"].is_null()) {
        const json& l = j["lesson"];
        if (!l.is_object() || !l.contains("id") || !l["id"].is_string() || !l.contains("step") ||
            !l["step"].is_number_integer())
            check.fail("\"lesson\" must be null or {\"id\": text, \"step\": whole number}");
        check.only_keys(l, {"id", "step"}, " in \"lesson\"");
        const int64_t step = l["step"].get<int64_t>();
        if (step < 0 || step > kMaxLessonStep)
            check.fail("the lesson step must be between 0 and " + std::to_string(kMaxLessonStep) + ", got " +
                       std::to_string(step));
        session.lesson = LessonPosition{l["id"].get<std::string>(), static_cast<int>(step)};
    }
    if (j.contains("ui")) {
        if (!j["ui"].is_object()) check.fail("\"ui\" must be an object");
        session.ui = j["ui"];
    }
    return session;
}

void save_session(const std::string& path, const SavedSession& session) {
    const std::string text = session_json(session) + "\n";
    try {
        write_file_atomically(path, text, /*durable=*/true);
    } catch (const FileError& e) {
        throw SessionError(path + ": cannot save: " + e.reason);
    }
}

SavedSession load_session(const std::string& path) {
    std::string text;
    try {
        text = read_file_capped(path, kMaxBytes, "a session");
    } catch (const FileError& e) {
        throw SessionError(e.what());  // "PATH: no such file", "PATH: the file is N bytes; a session is at most 1 MB"
    }
    return parse_session(text, path);
}

}  // namespace attn
