#include "state/session_io.h"

#include <algorithm>

#include "state/colormap.h"
#include "state/lesson_player.h"
#include "classroom/session_file.h"

namespace app {

FileOutcome save_session_file(const std::string& path, const LiveRun& live, const ViewState& c, float ui_scale) {
    attn::SavedSession saved;
    saved.settings = live.controls;  // greyed-out controls too: loading restores them as they were
    if (const attn::Lesson* l = current_lesson(c); l && c.in_lesson) saved.lesson = attn::LessonPosition{l->id, c.step};
    saved.ui = {{"selected_head", live.shown_head()},
                {"ui_scale", ui_scale},
                {"presenter", c.presenter},
                {"colormap", c.theme},
                {"compare", c.compare ? nlohmann::json(attn::comparison_name(*c.compare)) : nlohmann::json(nullptr)}};
    try {
        attn::save_session(path, saved);
        return FileOutcome{path, ""};
    } catch (const std::exception& e) {
        return FileOutcome{path, e.what()};
    }
}

FileOutcome load_session_file(const std::string& path, LiveRun& live, ViewState& c, float& ui_scale) {
    attn::SavedSession saved;
    try {
        saved = attn::load_session(path);
    } catch (const std::exception& e) {
        return FileOutcome{path, e.what()};
    }
    // The ui object is the app's own but may come from an older or hand-edited file:
    // each entry is used only when it has the right type and range.
    const nlohmann::json& ui = saved.ui;
    const auto get = [&](const char* key) { return ui.is_object() && ui.contains(key) ? ui[key] : nlohmann::json(); };
    if (saved.lesson) {
        const int lesson = find_lesson(c, saved.lesson->lesson_id);
        if (lesson < 0) return FileOutcome{path, path + ": " + why_no_lesson(c, saved.lesson->lesson_id)};
        enter_step(c, live, lesson, saved.lesson->step);
    } else {
        c.in_lesson = false;
    }
    // The saved settings win over the step's: the student may have moved a slider.
    live.apply_settings(saved.settings);
    if (get("selected_head").is_number_integer()) live.select_head(get("selected_head").get<int>());
    if (get("ui_scale").is_number()) ui_scale = std::clamp(get("ui_scale").get<float>(), 1.0f, 3.0f);
    if (get("presenter").is_boolean()) c.presenter = get("presenter").get<bool>();
    if (get("colormap").is_string() && find_theme(get("colormap").get<std::string>()))
        c.theme = get("colormap").get<std::string>();
    if (get("compare").is_string()) c.compare = attn::comparison_from_name(get("compare").get<std::string>());
    else if (get("compare").is_null() && !saved.lesson) c.compare.reset();
    return FileOutcome{path, ""};
}

}  // namespace app
