// Lesson 5.5 (assets/lessons/5.5-trained-heads.json) says what the shipped model's heads do
// on its sentences; each claim is checked here against the runs the steps show, so a
// retrained model that no longer does it fails this test rather than the lesson's reader.
// Also: a lesson may run the shipped model only.
#include <catch2/catch.hpp>

#include <string>

#include "classroom/lesson.h"
#include "model/head_scores.h"
#include "run/run_session.h"

namespace {

const attn::Lesson& trained_heads() {
    static const attn::Lesson lesson = attn::load_lesson(attn::lessons_dir() + "/5.5-trained-heads.json");
    return lesson;
}

struct Shown {
    attn::Run run;
    const attn::Matrix& stage;
    explicit Shown(const attn::LessonStep& step)
        : run(attn::compute_view(attn::step_settings(step))),
          stage(run.trace.heads.at(static_cast<size_t>(step.head)).at(step.stage)) {}
    // The column of row r's largest value among the keys row r may see.
    Eigen::Index argmax(Eigen::Index r) const {
        Eigen::Index c = 0;
        stage.row(r).head(r + 1).maxCoeff(&c);
        return c;
    }
    attn::HeadScores scores(int head) const {
        return run.model->head_scores.at(static_cast<size_t>(run.model->layer)).at(static_cast<size_t>(head));
    }
};

}  // namespace

TEST_CASE("lesson 5.5 claims what the shipped model's heads do", "[lessons][model]") {
    // The heads and cells come from the lesson itself: each highlighted cell (r, c) is a
    // claim that row r gives its largest weight to token c.
    const auto& steps = trained_heads().steps;
    REQUIRE(steps.size() == 6);
    const auto check_cells = [](const Shown& s, const attn::LessonStep& step) {
        REQUIRE(!step.cells.empty());
        // The text names the head it shows ("head {layer}.5"): the one the step selects.
        CHECK(step.text.find("{layer}." + std::to_string(step.head) + " ") != std::string::npos);
        for (const attn::LessonCell& cell : step.cells) {
            INFO(step.where << ": row " << cell.row);
            CHECK(s.argmax(cell.row) == cell.col);
        }
    };
    SECTION("step 1: the head looks back one token, above what even weights score") {
        const Shown s(steps[0]);
        check_cells(s, steps[0]);
        for (const attn::LessonCell& cell : steps[0].cells) CHECK(cell.col == cell.row - 1);
        CHECK(s.scores(steps[0].head).previous_token > 1.5 * s.run.model->chance_scores.previous_token);
    }
    SECTION("step 2: the highlighted row's largest score is the token before") {
        const Shown s(steps[1]);
        REQUIRE(steps[1].stage == "scaled_scores");
        REQUIRE(steps[1].rows.size() == 1);
        const int row = steps[1].rows[0];
        CHECK(s.argmax(row) == row - 1);
    }
    SECTION("step 3: the head keeps rows on the diagonal and is none of the four types") {
        const Shown s(steps[2]);
        check_cells(s, steps[2]);
        for (const attn::LessonCell& cell : steps[2].cells) CHECK(cell.col == cell.row);
        CHECK_FALSE(attn::dominant_type(s.scores(steps[2].head), 0.4).has_value());
    }
    SECTION("step 4: almost every row's largest weight goes to one word, neither the token before nor itself") {
        const Shown s(steps[3]);
        check_cells(s, steps[3]);
        const Eigen::Index word = steps[3].cells.front().col;
        for (const attn::LessonCell& cell : steps[3].cells) {
            CHECK(cell.col == word);
            CHECK(cell.col != cell.row);
            CHECK(cell.col != cell.row - 1);
        }
        // "almost every row": of the rows after the word but the last, at most two look elsewhere
        int elsewhere = 0;
        for (Eigen::Index r = word + 1; r + 1 < s.stage.rows(); ++r) elsewhere += s.argmax(r) != word;
        CHECK(elsewhere <= 2);
        // "this model parks little weight on the first token"
        CHECK(s.scores(steps[3].head).first_token < 2 * s.run.model->chance_scores.first_token);
    }
    SECTION("step 5: on a repeated sentence no head duplicates or copies") {  // "not to copy"
        const Shown s(steps[4]);
        for (const auto& layer : s.run.model->head_scores)
            for (const attn::HeadScores& h : layer) {
                CHECK(h.duplicate_token < 0.4);
                CHECK(h.induction < 0.4);
            }
    }
}

TEST_CASE("a lesson runs the shipped model or a cache model only", "[lessons][model]") {
    const std::string lesson = R"({"format": "attnscope-lesson", "version": 1, "id": "t", "title": "T", "steps": [
        {"title": "One", "flags": ["--model", "gpt-ch4", "--text", "Hello"], "stage": "weights", "text": "ok"},
        {"title": "Two", "flags": ["--model", "gpt-ch4", "--text", "Hello"], "stage": "weights", "text": "ok"}]})";
    try {
        attn::parse_lesson(lesson, "teacher.json");
        FAIL("a gpt-ch4 lesson loaded");
    } catch (const attn::LessonError& e) {
        CHECK(std::string(e.what()) ==
              "teacher.json, step 1 (\"One\"): lessons run on a shipped model (--model sotu-small or sotu-attn-only) "
              "or on a Hugging Face cache model named by its repository id (--model ORG/NAME); gpt-ch4 would take "
              "seconds to load each time the app starts");
    }
}
