// Session files (see session_file.h): JSON out, JSON -> CLI flags -> Settings in.
#include "session_file.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "file_io.h"

namespace attn {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "attnscope-session";
constexpr int kVersion = 1;
constexpr std::uintmax_t kMaxBytes = 1 << 20;
constexpr int kMaxLessonStep = 10000;

// How a settings field becomes flags: the CLI's parser then checks its value.
enum class Kind {
    Text,        // string -> FLAG value
    OptText,     // null or string
    Integer,     // whole number -> FLAG value
    OptInteger,  // null or whole number
    Number,      // any number
    Switch,      // true -> FLAG
    Training,    // false -> --eval
};

struct Field {
    const char* key;
    const char* flag;
    Kind kind;
};

// Every control of attn::Settings; key names follow the app's state file.
const std::vector<Field> kFields = {
    {"text", "--text", Kind::Text},
    {"text2", "--text2", Kind::OptText},
    {"tokenizer", "--tokenizer", Kind::Text},
    {"corpus", "--corpus", Kind::OptText},
    {"embedding", "--embedding", Kind::Text},
    {"variant", "--variant", Kind::Text},
    {"seed", "--seed", Kind::Integer},
    {"embed_seed", "--embed-seed", Kind::Integer},
    {"dropout_seed", "--dropout-seed", Kind::OptInteger},
    {"d_in", "--d-in", Kind::Integer},
    {"d_out", "--d-out", Kind::Integer},
    {"d_out_v", "--d-out-v", Kind::OptInteger},
    {"heads", "--heads", Kind::Integer},
    {"batch", "--batch", Kind::Integer},
    {"kv_len", "--kv-len", Kind::Integer},
    {"vocab_size", "--vocab-size", Kind::OptInteger},
    {"context_length", "--context-length", Kind::OptInteger},
    {"dropout", "--dropout", Kind::Number},
    {"training", "--eval", Kind::Training},
    {"qkv_bias", "--qkv-bias", Kind::Switch},
    {"pos", "--pos", Kind::Switch},
    {"causal", "--causal", Kind::Switch},
};

template <typename T>
json optional_json(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

json settings_json(const Settings& s) {
    const AttentionConfig& a = s.attention;
    return {{"text", s.text},
            {"text2", optional_json(s.text2)},
            {"tokenizer", s.tokenizer},
            {"corpus", optional_json(s.corpus_file)},
            {"embedding", s.embedding},
            {"variant", variant_name(a.variant)},
            {"seed", a.seed},
            {"embed_seed", s.embed_seed},
            {"dropout_seed", optional_json(a.dropout_seed)},
            {"d_in", s.d_in},
            {"d_out", a.d_out},
            {"d_out_v", optional_json(s.d_out_v)},
            {"heads", a.heads},
            {"batch", a.batch},
            {"kv_len", a.kv_len},
            {"vocab_size", optional_json(s.vocab_size)},
            {"context_length", optional_json(s.context_length)},
            {"dropout", a.dropout},
            {"training", a.training},
            {"qkv_bias", a.qkv_bias},
            {"pos", s.pos},
            {"causal", a.causal}};
}

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
    void add_flags(const Field& f, const json& v, std::vector<std::string>& flags) const {
        const auto wrong = [&](const char* want) {
            fail(std::string("\"") + f.key + "\" must be " + want + ", got " + type_name(v));
        };
        const bool optional = f.kind == Kind::OptText || f.kind == Kind::OptInteger;
        if (optional && v.is_null()) return;
        switch (f.kind) {
        case Kind::Text:
        case Kind::OptText:
            if (!v.is_string()) wrong(optional ? "text or null" : "text");
            flags.insert(flags.end(), {f.flag, v.get<std::string>()});
            break;
        case Kind::Integer:
        case Kind::OptInteger:
            if (!v.is_number_integer()) wrong(optional ? "a whole number or null" : "a whole number");
            flags.insert(flags.end(), {f.flag, v.dump()});
            break;
        case Kind::Number:
            if (!v.is_number()) wrong("a number");
            flags.insert(flags.end(), {f.flag, v.dump()});  // shortest text that reads back exactly
            break;
        case Kind::Switch:
        case Kind::Training:
            if (!v.is_boolean()) wrong("true or false");
            if (v.get<bool>() == (f.kind == Kind::Switch)) flags.push_back(f.flag);
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
    for (const Field& f : kFields) keys.push_back(f.key);
    check.only_keys(j, keys, " in \"settings\"");
    std::vector<std::string> flags;
    for (const Field& f : kFields)
        if (j.contains(f.key)) check.add_flags(f, j[f.key], flags);  // a missing field keeps its default
    try {
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
