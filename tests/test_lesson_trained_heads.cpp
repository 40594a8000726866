// Lesson 5.5 (assets/lessons/5.5-trained-heads.json) says what the shipped model's heads do
// on its sentences; each claim is checked here against the runs the steps show, so a
// retrained model that no longer does it fails this test rather than the lesson's reader.
// Also: a lesson may run the shipped model only.
#include <catch2/catch.hpp>

#include <string>

#include "classroom/lesson.h"
#include "model/head_scores.h"
#include "model/model_run.h"

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
    const auto& steps = trained_heads().steps;
    REQUIRE(steps.size() == 6);
    SECTION("step 1: head 0.5 looks back one token, above what even weights score") {
        const Shown s(steps[0]);
        CHECK(s.argmax(1) == 0);
        CHECK(s.argmax(2) == 1);
        CHECK(s.scores(5).previous_token > 1.5 * s.run.model->chance_scores.previous_token);
    }
    SECTION("step 2: row 2's largest score is the token before") {
        const Shown s(steps[1]);
        REQUIRE(steps[1].stage == "scaled_scores");
        CHECK(s.argmax(2) == 1);
    }
    SECTION("step 3: head 0.1 keeps rows on the diagonal and is none of the four types") {
        const Shown s(steps[2]);
        CHECK(s.argmax(4) == 4);
        CHECK(s.argmax(7) == 7);
        const attn::HeadScores h = s.scores(1);
        CHECK_FALSE(attn::dominant_type(h, 0.4).has_value());
    }
    SECTION("step 4: head 1.6 is a first-token sink") {
        const Shown s(steps[3]);
        for (const Eigen::Index r : {5, 9, 13}) CHECK(s.argmax(r) == 0);
        CHECK(s.scores(6).first_token > 2 * s.run.model->chance_scores.first_token);
    }
    SECTION("step 5: on a repeated sentence no head duplicates or copies") {
        const Shown s(steps[4]);
        for (const auto& layer : s.run.model->head_scores)
            for (const attn::HeadScores& h : layer) {
                CHECK(h.duplicate_token < 0.4);
                CHECK(h.induction < 0.4);
            }
    }
}

TEST_CASE("a lesson runs the shipped model only", "[lessons][model]") {
    const std::string lesson = R"({"format": "attnscope-lesson", "version": 1, "id": "t", "title": "T", "steps": [
        {"title": "One", "flags": ["--model", "gpt-ch4", "--text", "Hello"], "stage": "weights", "text": "ok"},
        {"title": "Two", "flags": ["--model", "gpt-ch4", "--text", "Hello"], "stage": "weights", "text": "ok"}]})";
    try {
        attn::parse_lesson(lesson, "teacher.json");
        FAIL("a gpt-ch4 lesson loaded");
    } catch (const attn::LessonError& e) {
        CHECK(std::string(e.what()) ==
              "teacher.json, step 1 (\"One\"): lessons run on the shipped model only (--model sotu-small); gpt-ch4 would "
              "take seconds to load each time the app starts");
    }
}
