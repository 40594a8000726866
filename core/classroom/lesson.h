#pragma once
// Lessons are data: one JSON file per lesson in assets/lessons/ (format described in
// assets/lessons/README.md), each a list of steps that set the controls with CLI flags,
// say which stage and cells to highlight, and explain them in a text whose
// {placeholders} are filled from the run on screen. A lesson is checked completely when
// it loads (flags, placeholders, stages, indices against its own runs), so a mistake
// in a teacher's file is a message naming the file and step, never a surprise later.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/user_error.h"
#include "run/comparisons.h"
#include "run/pipeline.h"
#include "settings/settings.h"

namespace attn {

// One line: the file, the step (counted from 1) and what is wrong.
struct LessonError : UserError {
    using UserError::UserError;
};

struct LessonCell {
    int row = 0;
    int col = 0;
};

// A model step's "stage" that shows the model view's top (its next tokens, the patch box,
// the logit lens and the heads' effects under them) instead of a stage of the shown head.
extern const char* const kNextTokensStage;  // "next_tokens"

struct LessonStep {
    std::string title;
    std::vector<std::string> flags;        // the lesson's flags, then the step's own
    std::string stage;                     // the stage to show and highlight, or kNextTokensStage
    int head = 0;                          // the head to select (and placeholders' default)
    std::vector<LessonCell> cells;         // cells of `stage` to highlight
    std::vector<int> rows;                 // whole rows of `stage` to highlight
    std::optional<ComparisonKind> compare; // open this comparison next to the view
    std::string text;                      // with {placeholders}; see render_step_text
    std::string where;                     // "FILE, step N", for messages
};

struct Lesson {
    std::string id;     // the book section, e.g. "3.4.1"
    std::string title;
    std::string file;   // where it was loaded from
    std::vector<LessonStep> steps;
    // The Hugging Face repository id of the cache model its steps run on
    // ("HuggingFaceTB/SmolLM2-135M"; --model ORG/NAME), "" for none. No such checkpoint can be
    // shipped: the lesson is offered where the cache has it.
    std::string model;
};

// The work a lesson's check did: what tests assert on instead of the clock. A step is
// estimated first (every step of the lesson), then run to check what it names.
struct LessonWork {
    int steps_estimated = 0;
    int steps_run = 0;
    double estimated_seconds = 0.0;  // the run time the estimates add up to
    LessonWork& operator+=(const LessonWork& o) {
        steps_estimated += o.steps_estimated;
        steps_run += o.steps_run;
        estimated_seconds += o.estimated_seconds;
        return *this;
    }
};

struct LessonLibrary {
    std::vector<Lesson> lessons;      // in file-name order
    std::vector<std::string> errors;  // one line per file that did not load
    // Lessons on a cache model this machine's cache does not have: listed with how to get
    // it (missing_model_note), not run.
    std::vector<Lesson> missing_model;
    LessonWork work;                  // for every file, loaded or refused
};

// The shipped lessons: data_path("lessons") (core/base/data_dir.h).
std::string lessons_dir();

// Reads, parses and validates one lesson file. Throws LessonError. A lesson on a cache
// model (Lesson::model) is checked but for its steps' runs: a real model's forward takes a
// tenth of a second and more a step, too long for every start of the app; the app runs
// each step when it is shown, and check_model_lesson checks them all (the tests do).
// `work`, when given, gains what the check did, also when it throws.
Lesson load_lesson(const std::string& path, LessonWork* work = nullptr);
// The same from JSON text; `source` names it in messages.
Lesson parse_lesson(const std::string& json_text, const std::string& source, LessonWork* work = nullptr);
// Every *.json file of `dir`, sorted by file name; a bad file lands in `errors`.
LessonLibrary load_lessons(const std::string& dir);

// Runs every step of a lesson on a cache model and checks what it names, as loading
// checks the other lessons. Throws LessonError (also when the cache has no such model).
void check_model_lesson(const Lesson& lesson, LessonWork* work = nullptr);
// "needs ORG/NAME from the Hugging Face cache: attnscope-cli --model ORG/NAME downloads it".
std::string missing_model_note(const std::string& model);

// The default settings with the step's flags applied. Throws LessonError.
Settings step_settings(const LessonStep& step);

// The step's text with every placeholder filled from `run`, the view on screen:
//   {stage[r][c]}         one value, 4 decimals ({stage[r][*]} a row, {stage[*][c]} a
//                         column, {stage[r]} = {stage[r][*]}); stage names as in the CLI
//                         trace plus "output" and compare_masking's stages
//   {head1.stage[r][c]}   the same from another head (default: the step's head)
//   {sum:sel} {max:sel} {min:sel} {maxabs:sel} {zeros:sel} {size:sel}   of a selection
//                         or of a whole stage ({max:dropout_mask})
//   {naive:sel}           a row divided by its sum (3.3.1); {exp:sel} e to the value(s)
//   {rows:stage} {cols:stage}            its shape
//   {dot:a[r]|b[r]}       a dot product written out: 0.5500·(−0.4300) + 0.8700·0.6600 + …
//   {token[i]} {token2[i]} {d_k} {sqrt_d_k} {num_tokens} {num_heads} {batch}
//   {kv_cache_bytes} {mha_cache_bytes} {kv_cache_tokens} {kv_cache_total}   today's variants' cache
//   {kv_group} {kv_groups} (1-based, as the head strip) {window}
//   {layer} {prev_score} {best_prev_head} {next_token[i]} …   a model's view: lesson_model_scalars.h
//   {{ and }}             literal braces
// Numbers and products are written as core/output/worked_arithmetic.h writes them, the same as
// the app's cell details: a real minus sign, −∞ for a masked score, (−x) as a factor.
// A value the run does not have (the student changed the view) shows as "—".
std::string render_step_text(const LessonStep& step, const Run& run);
// As render_step_text, but every problem throws LessonError: what loading checks
// against the step's own run.
void validate_step(const LessonStep& step, const Run& run);

}  // namespace attn
