// The shipped lessons load, compute and render, and show the book's numbers in the
// right steps; a teacher's mistake is a LessonError naming the file and the step.
// What each placeholder renders is tested in test_lesson_placeholders.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "classroom/lesson.h"
#include "run/run_session.h"
#include "output/worked_arithmetic.h"

namespace {

// A number as PyTorch printed it, as the lessons show it: with a real minus sign
// (U+2212, core/output/worked_arithmetic.h), the rest unchanged.
std::string as_shown(const std::string& pytorch) {
    std::string out;
    for (const char ch : pytorch) out += ch == '-' ? std::string("−") : std::string(1, ch);
    return out;
}

const attn::LessonLibrary& shipped() {
    static const attn::LessonLibrary library = attn::load_lessons(attn::lessons_dir());
    return library;
}

const attn::Lesson& lesson(const std::string& id) {
    for (const attn::Lesson& l : shipped().lessons)
        if (l.id == id) return l;
    FAIL("no shipped lesson " << id);
    throw;  // unreachable: FAIL throws
}

// The text of step `n` (counted from 1) rendered against its own run.
std::string rendered(const std::string& id, size_t n) {
    const attn::LessonStep& step = lesson(id).steps.at(n - 1);
    return attn::render_step_text(step, attn::compute_view(attn::step_settings(step)));
}

// A minimal valid lesson with one step whose fields can be overridden.
std::string one_step_lesson(const std::string& step_fields) {
    return R"({"format": "attnscope-lesson", "version": 1, "id": "t", "title": "Test", "steps": [
              {"title": "First", "stage": "weights", "text": "ok"},
              {"title": "Second", )" +
           step_fields + "}]}";
}

std::string error_of(const std::string& json_text) {
    try {
        attn::parse_lesson(json_text, "teacher.json");
    } catch (const attn::LessonError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("every shipped lesson loads: one per book section plus cross-attention", "[lessons]") {
    INFO(Catch::Detail::stringify(shipped().errors));
    CHECK(shipped().errors.empty());
    std::vector<std::string> ids;
    for (const attn::Lesson& l : shipped().lessons) {
        ids.push_back(l.id);
        CHECK(l.steps.size() >= 2);
        CHECK(l.steps.size() <= 6);
    }
    CHECK(ids == std::vector<std::string>{"3.3.1", "3.3.2", "3.4.1", "3.4.2", "3.5.1", "3.5.2", "3.5.3", "3.6.1",
                                          "3.6.2", "4.1", "4.2", "4.3", "4.4", "5.5", "5.6", "cross"});
}

TEST_CASE("every step computes and renders without leftover braces or gaps", "[lessons]") {
    for (const attn::Lesson& l : shipped().lessons)
        for (const attn::LessonStep& step : l.steps) {
            INFO(step.where);
            const attn::Run run = attn::compute_view(attn::step_settings(step));
            const std::string text = attn::render_step_text(step, run);
            CHECK(text.find('{') == std::string::npos);
            CHECK(text.find('}') == std::string::npos);
            CHECK(text.find("—") == std::string::npos);  // a value the run lacks
            CHECK_NOTHROW(attn::validate_step(step, run));
        }
}

TEST_CASE("the book's numbers appear in the steps that explain them", "[lessons]") {
    // Copied from the seed notebook (000) and the book text (002): what PyTorch printed.
    const std::map<std::pair<std::string, size_t>, std::vector<std::string>> expected = {
        {{"3.3.1", 2}, {"= 0.9544", "[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]"}},
        {{"3.3.1", 3}, {"[0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656]"}},
        {{"3.3.1", 4}, {"[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]"}},
        {{"3.3.1", 5}, {"[0.4419, 0.6515, 0.5683]"}},
        {{"3.3.2", 3}, {"[0.4419, 0.6515, 0.5683]"}},
        {{"3.4.1", 2}, {"q(2) = x(2)·W_query = [0.4306, 1.4551]"}},
        {{"3.4.1", 3}, {"= 1.8524", "[1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440]"}},
        {{"3.4.1", 4}, {"[0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820]"}},
        {{"3.4.1", 5}, {"[0.3061, 0.8210]"}},
        {{"3.4.2", 1}, {"[0.3061, 0.8210]"}},
        {{"3.4.2", 3}, {"[-0.0739, 0.0713]"}},
        {{"3.5.1", 3}, {"[0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000]"}},
        {{"3.5.1", 4}, {"[0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000]"}},
        {{"3.5.1", 5}, {"at most 0.0000"}},
        {{"3.5.2", 1}, {"[2.0000, 2.0000, 0.0000, 2.0000, 2.0000, 0.0000]"}},
        {{"3.5.2", 2}, {"[0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000]"}},
        {{"3.5.3", 3}, {"[-0.4519, 0.2216]"}},
        {{"3.6.1", 3}, {"[-0.4519, 0.2216, 0.4772, 0.1063]"}},
        {{"3.6.2", 3}, {"[0.3190, 0.4858]"}},
        {{"cross", 3}, {"[0.4231, 0.8665, 0.6503, 1.0042]"}},
        // Today's variants: the KV cache of ch04/04_gqa, 05_mla and 06_swa's memory
        // estimators for one layer of float32: 2 x groups x head_dim x 4 bytes per token
        // (gqa), MHA the same with a group per head, the latent x 4 (mla), the last W
        // tokens only (swa).
        {{"4.1", 5}, {"= 32 bytes per layer", "MHA would need 64;", "the 6 tokens of this sentence fill 192 bytes",
                      "head 4 reads group 2"}},
        {{"4.3", 2}, {"“step” sees 3 keys", "“journey” in row 2 sees just 2"}},
        {{"4.3", 5}, {"holds only the last 3", "32 bytes per layer, just like MHA's 32", "stays at 96 bytes"}},
        {{"4.4", 5}, {"= 8 bytes per layer", "64 bytes", "take 48 bytes"}},
    };
    for (const auto& [where, numbers] : expected) {
        const std::string text = rendered(where.first, where.second);
        for (const std::string& n : numbers) {
            INFO(where.first << " step " << where.second << ": " << text);
            CHECK(text.find(as_shown(n)) != std::string::npos);
        }
    }
}

TEST_CASE("step settings start from the defaults and apply the lesson's then the step's flags", "[lessons]") {
    const attn::Settings s = attn::step_settings(lesson("3.5.1").steps.at(1));
    CHECK(s.attention.variant == attn::Variant::SelfV2);
    CHECK(s.attention.seed == 789);
    CHECK(s.attention.causal);
    CHECK(lesson("3.5.1").steps.at(1).compare == attn::ComparisonKind::Masking);
    CHECK_FALSE(attn::step_settings(lesson("3.5.1").steps.at(0)).attention.causal);
}

TEST_CASE("render shows the current view's numbers and a dash for what the view lacks", "[lessons]") {
    const attn::LessonStep& step = lesson("3.4.1").steps.at(1);  // q(2) of self-v1
    attn::Settings other = attn::step_settings(step);
    other.attention.seed = 7;
    const std::string text = attn::render_step_text(step, attn::compute(other));
    CHECK(text.find("0.4306") == std::string::npos);

    other.attention.variant = attn::Variant::Simplified;  // no queries
    other.text = "Your journey";
    const attn::Run simplified = attn::compute(other);
    CHECK(attn::render_step_text(step, simplified).find("—") != std::string::npos);
    CHECK_THROWS_AS(attn::validate_step(step, simplified), attn::LessonError);
}

TEST_CASE("a malformed lesson is a LessonError naming the file and the step", "[lessons]") {
    SECTION("bad JSON") {
        const std::string e = error_of(R"({"format": "attnscope-lesson", "version": 1, "steps": [)");
        CHECK(e.rfind("teacher.json: not valid JSON", 0) == 0);
    }
    SECTION("unknown placeholder") {
        const std::string e = error_of(one_step_lesson(R"("stage": "weights", "text": "see {weigths[1][0]}")"));
        CHECK(e.find("teacher.json, step 2 (\"Second\")") == 0);
        CHECK(e.find("unknown placeholder {weigths[1][0]}") != std::string::npos);
    }
    SECTION("unknown function") {
        const std::string e = error_of(one_step_lesson(R"("stage": "weights", "text": "{avg:weights[1]}")"));
        CHECK(e.find("step 2") != std::string::npos);
        CHECK(e.find("unknown function 'avg'") != std::string::npos);
    }
    SECTION("index outside the step's own run") {
        const std::string e = error_of(one_step_lesson(R"("stage": "weights", "text": "{weights[6][0]}")"));
        CHECK(e.find("step 2") != std::string::npos);
        CHECK(e.find("row 6 is outside weights (6x6") != std::string::npos);
    }
    SECTION("unknown stage") {
        const std::string e = error_of(one_step_lesson(R"("stage": "attention", "text": "x")"));
        CHECK(e.find("step 2") != std::string::npos);
        CHECK(e.find("unknown stage \"attention\"") != std::string::npos);
    }
    SECTION("the next tokens on chapter 3's module, or with cells to mark") {
        std::string e = error_of(one_step_lesson(R"("stage": "next_tokens", "text": "x")"));
        CHECK(e.find("step 2") != std::string::npos);
        CHECK(e.find("next_tokens needs a model's view (--model)") != std::string::npos);
        e = error_of(one_step_lesson(
            R"("flags": ["--model", "sotu-small", "--text", "The state"], "stage": "next_tokens", "cells": [[1, 0]], "text": "x")"));
        CHECK(e.find("next_tokens has no cells or rows to mark") != std::string::npos);
        CHECK(error_of(one_step_lesson(R"("flags": ["--model", "sotu-small", "--text", "The state"], "stage": "next_tokens", )"
                                       R"("text": "{next_token[0]}")")) == "(no error)");
    }
    SECTION("a stage the step's variant does not have") {
        const std::string e = error_of(one_step_lesson(R"("flags": ["--variant", "simplified"], "stage": "queries", "text": "x")"));
        CHECK(e.find("step 2") != std::string::npos);
        CHECK(e.find("no stage 'queries'") != std::string::npos);
    }
    SECTION("bad flag value") {
        const std::string e = error_of(one_step_lesson(R"("flags": ["--heads", "0"], "stage": "weights", "text": "x")"));
        CHECK(e.find("step 2") != std::string::npos);
        CHECK(e.find("--heads must be between 1 and 64") != std::string::npos);
    }
    SECTION("unknown flag") {
        const std::string e = error_of(one_step_lesson(R"("flags": ["--colour", "red"], "stage": "weights", "text": "x")"));
        CHECK(e.find("unknown flag '--colour'") != std::string::npos);
    }
    SECTION("flags that give no view") {
        const std::string e = error_of(one_step_lesson(R"("flags": ["--variant", "mha", "--heads", "3"], "stage": "weights", "text": "x")"));
        CHECK(e.find("step 2") != std::string::npos);
        CHECK(e.find("the flags give no view: d_out (2) must be divisible by heads (3)") != std::string::npos);
    }
    SECTION("a cell outside the stage") {
        const std::string e = error_of(one_step_lesson(R"("stage": "weights", "cells": [[0, 9]], "text": "x")"));
        CHECK(e.find("cell [0, 9] is outside weights") != std::string::npos);
    }
    SECTION("an unclosed brace") {
        const std::string e = error_of(one_step_lesson(R"("stage": "weights", "text": "{weights[0][0]")"));
        CHECK(e.find("a '{' without '}'") != std::string::npos);
    }
    SECTION("a misspelt field") {
        const std::string e = error_of(one_step_lesson(R"("stage": "weights", "txt": "x")"));
        CHECK(e.find("unknown field \"txt\"") != std::string::npos);
    }
    SECTION("a foreign JSON file") {
        CHECK(error_of(R"({"variant": "self-v1", "heads": []})").find("missing \"format\"") != std::string::npos);
    }
}

TEST_CASE("load_lessons reports a bad file and keeps the others", "[lessons]") {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "attnscope-lessons-test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(lesson("3.3.1").file, dir / "a.json");
    std::ofstream(dir / "b.json") << "{ not json";
    std::ofstream(dir / "notes.md") << "ignored";
    const attn::LessonLibrary library = attn::load_lessons(dir.string());
    REQUIRE(library.lessons.size() == 1);
    CHECK(library.lessons[0].id == "3.3.1");
    REQUIRE(library.errors.size() == 1);
    CHECK(library.errors[0].find("b.json: not valid JSON") != std::string::npos);
    CHECK_THROWS_WITH(attn::load_lesson((dir / "missing.json").string()), Catch::Contains("missing.json: cannot read"));
    std::filesystem::remove_all(dir);
}

namespace {

// What the compare view draws for a step: `stage` of `head` in `run`, as
// app/views/compare_view.cpp finds it (a head's, the model's or the output).
bool shows(const attn::Run& run, int head, const std::string& stage) {
    if (head < 0 || head >= static_cast<int>(run.trace.heads.size())) return false;
    return run.trace.heads[static_cast<size_t>(head)].find(stage) || run.trace.model.find(stage) ||
           (stage == "output" && !run.trace.output.empty());
}

float cell(const attn::Run& run, const char* stage, int r, int c, int head = 0) {
    return run.trace.heads.at(static_cast<size_t>(head)).at(stage)(r, c);
}

}  // namespace

TEST_CASE("a step comparing two runs shows a stage both of them have", "[lessons]") {
    // Otherwise the compare view falls back to "weights" and the text explains another stage.
    for (const attn::Lesson& l : shipped().lessons)
        for (const attn::LessonStep& step : l.steps) {
            if (!step.compare || *step.compare == attn::ComparisonKind::Masking) continue;
            for (const auto& [label, settings] : attn::comparison_settings(attn::step_settings(step), *step.compare)) {
                INFO(step.where << ": " << label);
                CHECK(shows(attn::compute_view(settings), step.head, step.stage));
            }
        }
}

TEST_CASE("today's lessons claim what their runs show", "[lessons]") {
    SECTION("4.1: heads of one group share keys, not queries") {
        const attn::LessonStep& step = lesson("4.1").steps.at(0);
        const attn::Run run = attn::compute_view(attn::step_settings(step));
        REQUIRE(run.trace.head_groups == std::vector<int>{0, 0, 1, 1});
        const auto& h = run.trace.heads;
        CHECK((h[0].at("keys") == h[1].at("keys")));
        CHECK((h[0].at("values") == h[1].at("values")));
        CHECK((h[1].at("keys") != h[2].at("keys")));
        CHECK((h[0].at("queries") != h[1].at("queries")));
    }
    SECTION("4.2: with RoPE a score depends on the distance, without it on the words alone") {
        const attn::LessonStep& step = lesson("4.2").steps.at(3);
        REQUIRE(step.compare == attn::ComparisonKind::Rope);
        const auto sides = attn::comparison_settings(attn::step_settings(step), *step.compare);
        const attn::Run off = attn::compute_view(sides.at(0).second), on = attn::compute_view(sides.at(1).second);
        // "the cat sat the cat sat": “cat” (1, 4) with “the” (0, 3), one and four words back.
        CHECK(cell(off, "scores", 1, 0) == Approx(cell(off, "scores", 4, 3)).margin(1e-6));
        CHECK(cell(off, "scores", 4, 0) == Approx(cell(off, "scores", 1, 0)).margin(1e-6));
        CHECK(cell(on, "scores", 1, 0) == Approx(cell(on, "scores", 4, 3)).margin(1e-6));
        CHECK(std::abs(cell(on, "scores", 4, 0) - cell(on, "scores", 1, 0)) > 0.01f);
        CHECK((on.trace.heads[0].at("queries").row(1) == on.trace.heads[0].at("queries").row(4)));
        CHECK((on.trace.heads[0].at("queries_rotated").row(0) == on.trace.heads[0].at("queries").row(0)));
        // The shown cells round alike, so the text's two numbers are one.
        const std::string text = rendered("4.2", 4);
        INFO(text);
        CHECK(text.find(attn::format_number(cell(on, "scores", 1, 0)) + " with") != std::string::npos);
        CHECK(text.find("(" + attn::format_number(cell(on, "scores", 1, 0)) + ")") != std::string::npos);
    }
    SECTION("4.3: the window hides the oldest keys and changes only the rows it cuts") {
        const attn::LessonStep& step = lesson("4.3").steps.at(2);
        const auto sides = attn::comparison_settings(attn::step_settings(step), *step.compare);
        const attn::Run causal = attn::compute_view(sides.at(0).second), window = attn::compute_view(sides.at(1).second);
        REQUIRE(window.trace.window == 3);
        const attn::Matrix& a = causal.trace.heads[0].at("weights");
        const attn::Matrix& b = window.trace.heads[0].at("weights");
        CHECK((a.topRows(3) == b.topRows(3)));
        for (int r = 3; r < 6; ++r) CHECK((a.row(r) - b.row(r)).cwiseAbs().maxCoeff() > 0.01f);
        CHECK(b.row(5).head(3).isZero());
    }
    SECTION("4.4: the keys are the latents up-projected, the queries MHA's") {
        const attn::LessonStep& step = lesson("4.4").steps.at(2);
        const auto sides = attn::comparison_settings(attn::step_settings(step), *step.compare);
        const attn::Run mha = attn::compute_view(sides.at(0).second), mla = attn::compute_view(sides.at(1).second);
        CHECK((mha.trace.heads[0].at("queries") == mla.trace.heads[0].at("queries")));
        const attn::Matrix rebuilt = mla.trace.model.at("latents") * mla.trace.heads[0].at("W_UK");
        CHECK((rebuilt - mla.trace.heads[0].at("keys")).cwiseAbs().maxCoeff() < 1e-6f);
    }
}
