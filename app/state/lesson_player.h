#pragma once
// Moving through a lesson: a step sets every control, selects its head, scrolls the
// pipeline to its stage (or opens its comparison) and names the cells to outline.
#include <string>

#include "state/view_state.h"
#include "state/stage_marks.h"
#include "state/live_run.h"

namespace app {

const attn::Lesson* current_lesson(const ViewState& c);
const attn::LessonStep* current_step(const ViewState& c);  // null outside a lesson
int find_lesson(const ViewState& c, const std::string& id);  // -1 when absent
// Why find_lesson found no lesson `id`: none is installed, or its model is not here.
std::string why_no_lesson(const ViewState& c, const std::string& id);

// Applies step `step` (clamped) of lesson `lesson` and enters the lesson.
void enter_step(ViewState& c, LiveRun& live, int lesson, int step);
void next_step(ViewState& c, LiveRun& live);
void previous_step(ViewState& c, LiveRun& live);
void leave_lesson(ViewState& c);  // free play with the current controls
void back_to_lesson(ViewState& c, LiveRun& live);

// The current step's highlight on its stage.
StageMarks step_marks(const attn::LessonStep& step);

// The step's text filled from the run on screen, rendered again only when the run or
// the step changes.
class StepText {
public:
    const std::string& get(const ViewState& c, const attn::Run* run, uint64_t run_version);

private:
    int lesson_ = -1, step_ = -1;
    uint64_t version_ = UINT64_MAX;
    std::string text_;
};

}  // namespace app
