#pragma once
// Moving through a lesson: a step sets every control, selects its head, scrolls the
// pipeline to its stage (or opens its comparison) and names the cells to outline.
#include <string>

#include "classroom.h"
#include "pipeline_view.h"
#include "session.h"

namespace app {

const attn::Lesson* current_lesson(const Classroom& c);
const attn::LessonStep* current_step(const Classroom& c);  // null outside a lesson
int find_lesson(const Classroom& c, const std::string& id);  // -1 when absent

// Applies step `step` (clamped) of lesson `lesson` and enters the lesson.
void enter_step(Classroom& c, Session& session, int lesson, int step);
void next_step(Classroom& c, Session& session);
void previous_step(Classroom& c, Session& session);
void leave_lesson(Classroom& c);  // free play with the current controls
void back_to_lesson(Classroom& c, Session& session);

// The current step's highlight on its stage.
StageMarks step_marks(const attn::LessonStep& step);

// The step's text filled from the run on screen, rendered again only when the run or
// the step changes.
class StepText {
public:
    const std::string& get(const Classroom& c, const attn::Run* run, uint64_t run_version);

private:
    int lesson_ = -1, step_ = -1;
    uint64_t version_ = UINT64_MAX;
    std::string text_;
};

}  // namespace app
