// Lesson files: the input is the file's JSON text (parse_lesson, what load_lesson reads),
// which is parsed and validated by running every step (compute + every placeholder).
#include "fuzz_common.h"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    fuzz::refusals_are_fine([&] {
        const Lesson lesson = parse_lesson(text, "fuzz-lesson.json");
        fuzz::check(!lesson.steps.empty(), "a lesson that loads has steps");
        for (const LessonStep& step : lesson.steps) step_settings(step);  // loading checked them
    });
    return 0;
}
