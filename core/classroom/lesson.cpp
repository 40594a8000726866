// Lesson files: reading, checking and turning steps into settings (see lesson.h).
#include "classroom/lesson.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "base/data_dir.h"
#include "base/file_io.h"
#include "attention/stage_catalogue.h"
#include "run/run_session.h"
#include "model/model_source.h"

namespace attn {

const char* const kNextTokensStage = "next_tokens";

namespace {

using nlohmann::json;

constexpr std::uintmax_t kMaxLessonBytes = 1 << 20;
constexpr int kLessonVersion = 1;

const std::vector<std::string> kLessonKeys = {"format", "version", "id", "title", "flags", "steps"};
const std::vector<std::string> kStepKeys = {"title", "flags", "stage", "head", "cells", "rows", "compare", "text"};

bool contains(const std::vector<std::string>& list, const std::string& s) {
    return std::find(list.begin(), list.end(), s) != list.end();
}

std::string joined(const std::vector<std::string>& list, const char* separator = ", ") {
    std::string out;
    for (const std::string& s : list) out += (out.empty() ? "" : separator) + s;
    return out;
}

// Reads JSON fields with messages that name the field, prefixed by where it is.
class Reader {
public:
    explicit Reader(std::string where) : where_(std::move(where)) {}
    [[noreturn]] void fail(const std::string& why) const { throw LessonError(where_ + ": " + why); }

    void only_keys(const json& j, const std::vector<std::string>& keys) const {
        for (const auto& [key, value] : j.items())
            if (!contains(keys, key)) fail("unknown field \"" + key + "\" (known: " + joined(keys) + ")");
    }
    std::string string(const json& j, const char* key, bool required) const {
        if (!j.contains(key)) {
            if (required) fail(std::string("missing \"") + key + "\"");
            return {};
        }
        if (!j[key].is_string()) fail(std::string("\"") + key + "\" must be a string");
        return j[key].get<std::string>();
    }
    int integer(const json& j, const char* key, int fallback) const {
        if (!j.contains(key)) return fallback;
        if (!j[key].is_number_integer() || j[key].get<int64_t>() < 0 || j[key].get<int64_t>() > 4096)
            fail(std::string("\"") + key + "\" must be a whole number from 0 to 4096");
        return j[key].get<int>();
    }
    std::vector<std::string> strings(const json& j, const char* key) const {
        if (!j.contains(key)) return {};
        const json& a = j[key];
        if (!a.is_array() || !std::all_of(a.begin(), a.end(), [](const json& e) { return e.is_string(); }))
            fail(std::string("\"") + key + "\" must be a list of strings, e.g. [\"--variant\", \"causal\"]");
        return a.get<std::vector<std::string>>();
    }
    std::vector<int> indices(const json& j, const char* what) const {
        if (!j.is_array() || !std::all_of(j.begin(), j.end(), [](const json& e) {
                return e.is_number_integer() && e.get<int64_t>() >= 0 && e.get<int64_t>() <= 65536;
            }))
            fail(std::string(what) + " must be a list of whole numbers (counted from 0)");
        return j.get<std::vector<int>>();
    }

private:
    std::string where_;
};

LessonStep parse_step(const json& j, const std::vector<std::string>& lesson_flags, const std::string& where) {
    const Reader read(where);
    if (!j.is_object()) read.fail("a step must be an object");
    read.only_keys(j, kStepKeys);
    LessonStep step;
    step.where = where;
    step.title = read.string(j, "title", true);
    step.text = read.string(j, "text", true);
    step.stage = read.string(j, "stage", true);
    if (!find_stage_info(step.stage) && step.stage != kNextTokensStage)
        read.fail("unknown stage \"" + step.stage + "\" (" + joined(stage_names()) + ", " +
                  joined(masking_stage_names()) + ", or " + kNextTokensStage + " on a model)");
    step.head = read.integer(j, "head", 0);
    step.flags = lesson_flags;
    const std::vector<std::string> own = read.strings(j, "flags");
    step.flags.insert(step.flags.end(), own.begin(), own.end());
    if (j.contains("cells")) {
        if (!j["cells"].is_array()) read.fail("\"cells\" must be a list of [row, column] pairs");
        for (const json& c : j["cells"]) {
            const std::vector<int> rc = read.indices(c, "each cell");
            if (rc.size() != 2) read.fail("each cell must be a [row, column] pair");
            step.cells.push_back(LessonCell{rc[0], rc[1]});
        }
    }
    if (j.contains("rows")) step.rows = read.indices(j["rows"], "\"rows\"");
    if (j.contains("compare")) {
        const std::string name = read.string(j, "compare", true);
        step.compare = comparison_from_name(name);
        if (!step.compare) read.fail("unknown comparison \"" + name + "\" (" + joined(comparison_names()) + ")");
    }
    return step;
}

// Lessons are checked by running their steps when the app starts, so a lesson must be
// small: the book's steps need kilobytes and microseconds. The whole lesson's cost is
// estimated from token counts before any step runs, so a file asking for 64 heads of
// 2000 tokens is refused in milliseconds rather than stalling the window's opening.
// An engine error (UserError) says what is wrong with the step's flags. Anything else
// is a defect of attnscope and is said to be one, rather than shown as a library's
// terse message such as "vector::_M_range_check".
[[noreturn]] void step_gives_no_view(const LessonStep& step, const std::exception& e) {
    const bool about_the_flags = dynamic_cast<const UserError*>(&e) != nullptr;
    throw LessonError(step.where + ": the flags give no view: " +
                      (about_the_flags ? std::string(e.what())
                                       : "internal error (" + std::string(e.what()) + "); please report it"));
}

// The model a lesson's step may run: the shipped one (lessons on trained heads are written
// for it), loaded once for every lesson, or a Llama-family model of the Hugging Face cache
// named by its repository id (only a lesson on it loads it). gpt-ch4 or a GPT-2 would take
// seconds to build or read each time the app starts and checks its lessons.
const LoadedModel& lesson_model(const Settings& s, const LessonStep& step) {
    const bool from_cache = is_hub_repo_id(*s.model);
    if (!from_cache && !is_shipped_model(*s.model))
        throw LessonError(step.where + ": lessons run on a shipped model (--model " + joined(shipped_models(), " or ") +
                          ") or on a Hugging Face cache model named by its repository id (--model ORG/NAME); " +
                          *s.model + " would take seconds to load each time the app starts");
    static std::mutex mutex;
    static std::map<std::string, LoadedModel> loaded;  // each model once, when a step first needs it
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = loaded.find(*s.model);
    if (it == loaded.end()) {
        LoadedModel m = load_model(*s.model, 0);
        if (from_cache) {
            try {
                m.model->encode("a");
            } catch (const ModelFileError&) {
                throw LessonError(step.where + ": " + *s.model + " in the Hugging Face cache has no tokenizer.json attnscope reads");
            }
        }
        it = loaded.emplace(*s.model, std::move(m)).first;
    }
    return it->second;
}

// What a step costs: its model's run (the text's tokens and the generated ones, every
// stage of one head) or the chapter 3 module's.
WorkEstimate estimate_step(const Settings& s, const LessonStep& step) {
    if (!s.model) return estimate_run(s);
    const LoadedModel& model = lesson_model(s, step);
    const auto tokens = static_cast<int64_t>(model.model->encode(s.text).ids.size()) + s.generate;
    return model.model->run_work(tokens, s.generate, true);
}

// The cache model a step runs on, "" for none.
std::string cache_model_of(const Settings& s) { return s.model && is_hub_repo_id(*s.model) ? *s.model : ""; }

// A step on the shipped model where its weights are not here: the browser's page
// downloads them only when a lesson or the model list asks for them. The same lesson
// files were checked where the weights are (the desktop app, the tests); the step runs
// when they arrive.
bool weights_not_here(const Settings& s) {
    return s.model && is_shipped_model(*s.model) && !shipped_model_present(*s.model);
}

constexpr double kLessonBytes = 128.0 * 1024 * 1024;  // any one step
constexpr double kLessonSeconds = 0.25;                // all steps together
// A lesson on a cache model runs a step when it is shown, not every step at start-up.
constexpr double kModelLessonBytes = 1024.0 * 1024 * 1024;
constexpr double kModelLessonSeconds = 10.0;

void check_lesson_cost(const Lesson& lesson, LessonWork& work) {
    const bool on_model = !lesson.model.empty();
    const double max_bytes = on_model ? kModelLessonBytes : kLessonBytes;
    const double max_seconds = on_model ? kModelLessonSeconds : kLessonSeconds;
    double seconds = 0.0;
    for (const LessonStep& step : lesson.steps) {
        WorkEstimate w;
        try {
            const Settings s = step_settings(step);
            if (weights_not_here(s)) continue;
            w = estimate_step(s, step);
        } catch (const LessonError&) {
            throw;
        } catch (const std::exception& e) {
            step_gives_no_view(step, e);
        }
        seconds += w.seconds;
        ++work.steps_estimated;
        work.estimated_seconds += w.seconds;
        if (w.bytes > max_bytes)
            throw LessonError(step.where + ": too large for a lesson: it needs about " + size_text(w.bytes) +
                              " (at most " + size_text(max_bytes) + "): lower " + w.lower);
        if (seconds > max_seconds)
            throw LessonError(step.where + ": too slow for a lesson: its steps up to here need about " +
                              std::to_string(static_cast<int>(seconds * 1000)) + " ms (at most " +
                              std::to_string(static_cast<int>(max_seconds * 1000)) + " ms): lower " + w.lower);
    }
}

// Runs every step and checks that everything it names is in its view.
void run_steps(const Lesson& lesson, LessonWork& work) {
    for (const LessonStep& step : lesson.steps) {
        const Settings s = step_settings(step);
        if (weights_not_here(s)) continue;
        Run run;
        ++work.steps_run;
        try {
            run = s.model ? compute_view(s, lesson_model(s, step)) : compute(s);
        } catch (const LessonError&) {
            throw;
        } catch (const std::exception& e) {
            step_gives_no_view(step, e);
        }
        validate_step(step, run);
    }
}

// Every step's flags must give a view, and everything the step names must be in it. A
// lesson on a cache model is checked to its flags here (check_model_lesson runs it).
void validate(Lesson& lesson, LessonWork& work) {
    std::vector<std::string> models;  // each step's cache model, "" for none
    for (const LessonStep& step : lesson.steps) models.push_back(cache_model_of(step_settings(step)));
    for (size_t i = 0; i < models.size(); ++i) {
        if (models[i].empty()) continue;
        if (!lesson.model.empty() && lesson.model != models[i])
            throw LessonError(lesson.steps[i].where + ": a lesson runs on one cache model; this step names " + models[i] +
                              ", an earlier one " + lesson.model);
        lesson.model = models[i];
    }
    if (!lesson.model.empty()) {
        for (size_t i = 0; i < models.size(); ++i)
            if (models[i].empty())
                throw LessonError(lesson.steps[i].where + ": every step of a lesson on " + lesson.model + " runs on it (--model)");
        return;
    }
    check_lesson_cost(lesson, work);
    run_steps(lesson, work);
}

}  // namespace

std::string lessons_dir() { return data_path("lessons"); }

Settings step_settings(const LessonStep& step) {
    const auto fail = [&](const std::string& why) { throw LessonError(step.where + ": " + why); };
    ParsedArgs parsed;
    try {
        parsed = parse_settings(step.flags);
    } catch (const ArgsError& e) {
        fail(std::string("bad flags: ") + e.what());
    }
    // --stages, --time, --emit-pytorch and --export are the CLI's own: unknown here.
    if (!parsed.rest.empty()) fail("unknown flag '" + parsed.rest[0] + "' (a lesson step takes the settings' flags)");
    if (parsed.help || parsed.settings.memory_budget) fail("--help and --memory-budget are not lesson controls");
    try {
        check_applicable(parsed.settings);
    } catch (const ArgsError& e) {
        fail(std::string("bad flags: ") + e.what());
    }
    return parsed.settings;
}

Lesson parse_lesson(const std::string& json_text, const std::string& source, LessonWork* work) {
    const Reader read(source);
    json j;
    try {
        j = json::parse(json_text);
    } catch (const json::parse_error& e) {
        read.fail(std::string("not valid JSON (") + e.what() + ")");
    } catch (const json::out_of_range&) {  // found by fuzzing: a number like 1.5e30077
        read.fail("a number too large for a double");
    }
    if (!j.is_object()) read.fail("a lesson is a JSON object");
    if (read.string(j, "format", true) != "attnscope-lesson")
        read.fail("\"format\" must be \"attnscope-lesson\", got \"" + j["format"].get<std::string>() + "\"");
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int64_t>() != kLessonVersion)
        read.fail("\"version\" must be " + std::to_string(kLessonVersion));
    read.only_keys(j, kLessonKeys);
    Lesson lesson;
    lesson.file = source;
    lesson.id = read.string(j, "id", true);
    lesson.title = read.string(j, "title", true);
    const std::vector<std::string> flags = read.strings(j, "flags");
    if (!j.contains("steps") || !j["steps"].is_array() || j["steps"].empty())
        read.fail("\"steps\" must be a non-empty list");
    for (size_t i = 0; i < j["steps"].size(); ++i) {
        const json& step = j["steps"][i];
        std::string where = source + ", step " + std::to_string(i + 1);
        if (step.is_object() && step.contains("title") && step["title"].is_string())
            where += " (\"" + step["title"].get<std::string>() + "\")";
        lesson.steps.push_back(parse_step(step, flags, where));
    }
    LessonWork unused;
    validate(lesson, work ? *work : unused);
    return lesson;
}

Lesson load_lesson(const std::string& path, LessonWork* work) {
    std::string text;
    try {
        text = read_file_capped(path, kMaxLessonBytes, "a lesson");
    } catch (const FileError& e) {
        if (e.problem == FileError::Problem::TooLarge) throw LessonError(e.what());  // "...; a lesson is at most 1 MB"
        throw LessonError(path + ": cannot read: " + e.reason);  // "cannot read: No such file or directory"
    }
    return parse_lesson(text, path, work);
}

void check_model_lesson(const Lesson& lesson, LessonWork* work) {
    if (lesson.model.empty()) throw LessonError(lesson.file + ": runs on no cache model");
    if (huggingface_model_folder(lesson.model).empty())
        throw LessonError(lesson.file + ": " + missing_model_note(lesson.model));
    LessonWork unused;
    check_lesson_cost(lesson, work ? *work : unused);
    run_steps(lesson, work ? *work : unused);
}

std::string missing_model_note(const std::string& model) {
    return "needs " + model + " from the Hugging Face cache: attnscope-cli --model " + model + " downloads it";
}

LessonLibrary load_lessons(const std::string& dir) {
    LessonLibrary library;
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    if (ec) library.errors.push_back(dir + ": cannot list: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) {
        try {
            Lesson lesson = load_lesson(f, &library.work);
            const bool missing = !lesson.model.empty() && huggingface_model_folder(lesson.model).empty();
            (missing ? library.missing_model : library.lessons).push_back(std::move(lesson));
        } catch (const LessonError& e) {
            library.errors.push_back(e.what());
        }
    }
    return library;
}

}  // namespace attn
