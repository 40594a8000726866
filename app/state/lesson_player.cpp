#include "state/lesson_player.h"

#include <algorithm>

namespace app {

namespace {

bool is_masking_stage(const std::string& stage) {
    const auto& names = attn::masking_stage_names();
    return std::find(names.begin(), names.end(), stage) != names.end();
}

}  // namespace

const attn::Lesson* current_lesson(const ViewState& c) {
    if (c.lesson < 0 || c.lesson >= static_cast<int>(c.library.lessons.size())) return nullptr;
    return &c.library.lessons[static_cast<size_t>(c.lesson)];
}

const attn::LessonStep* current_step(const ViewState& c) {
    const attn::Lesson* l = current_lesson(c);
    if (!l || !c.in_lesson || l->steps.empty()) return nullptr;
    return &l->steps[static_cast<size_t>(std::clamp(c.step, 0, static_cast<int>(l->steps.size()) - 1))];
}

int find_lesson(const ViewState& c, const std::string& id) {
    for (size_t i = 0; i < c.library.lessons.size(); ++i)
        if (c.library.lessons[i].id == id) return static_cast<int>(i);
    return -1;
}

std::string why_no_lesson(const ViewState& c, const std::string& id) {
    for (const attn::Lesson& l : c.library.missing_model)
        if (l.id == id) return "lesson " + id + " " + attn::missing_model_note(l.model);
    return "no lesson '" + id + "' in " + attn::lessons_dir();
}

void enter_step(ViewState& c, LiveRun& live, int lesson, int step) {
    if (lesson < 0 || lesson >= static_cast<int>(c.library.lessons.size())) return;
    const attn::Lesson& l = c.library.lessons[static_cast<size_t>(lesson)];
    if (l.steps.empty()) return;
    c.lesson = lesson;
    c.step = std::clamp(step, 0, static_cast<int>(l.steps.size()) - 1);
    c.in_lesson = true;
    const attn::LessonStep& s = l.steps[static_cast<size_t>(c.step)];
    try {
        live.apply_settings(attn::step_settings(s));
        c.lesson_error.clear();
    } catch (const std::exception& e) {
        c.lesson_error = e.what();  // the controls stay as they were
        return;
    }
    live.select_head(s.head);
    // A masking stage lives only in the masking comparison; a stage of the pipeline is
    // shown there, unless the step compares two runs of it.
    c.compare = s.compare;
    if (is_masking_stage(s.stage)) c.compare = attn::ComparisonKind::Masking;
    const bool two_runs = c.compare && *c.compare != attn::ComparisonKind::Masking;
    if (two_runs) c.compare_stage = s.stage;
    c.show_tab(two_runs || is_masking_stage(s.stage) ? ViewTab::Compare : ViewTab::Pipeline);
    live.scroll_to_stage = s.stage;
}

void next_step(ViewState& c, LiveRun& live) {
    const attn::Lesson* l = current_lesson(c);
    if (l && c.in_lesson && c.step + 1 < static_cast<int>(l->steps.size())) enter_step(c, live, c.lesson, c.step + 1);
}

void previous_step(ViewState& c, LiveRun& live) {
    if (current_lesson(c) && c.in_lesson && c.step > 0) enter_step(c, live, c.lesson, c.step - 1);
}

void leave_lesson(ViewState& c) { c.in_lesson = false; }

void back_to_lesson(ViewState& c, LiveRun& live) { enter_step(c, live, c.lesson, c.step); }

StageMarks step_marks(const attn::LessonStep& step) {
    StageMarks m;
    m.stage = step.stage;
    for (const attn::LessonCell& cell : step.cells) m.cells.cells.emplace_back(cell.row, cell.col);
    m.cells.rows = step.rows;
    return m;
}

const std::string& StepText::get(const ViewState& c, const attn::Run* run, uint64_t run_version) {
    const attn::LessonStep* step = current_step(c);
    if (!step || !run) {
        text_.clear();
        version_ = UINT64_MAX;
        return text_;
    }
    if (c.lesson == lesson_ && c.step == step_ && run_version == version_) return text_;
    lesson_ = c.lesson;
    step_ = c.step;
    version_ = run_version;
    text_ = attn::render_step_text(*step, *run);
    return text_;
}

}  // namespace app
