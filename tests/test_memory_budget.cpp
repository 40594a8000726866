// The memory budget: estimates from shapes, one-line refusals that name what to lower,
// sizes as users write them, and lessons too large to check at start-up refused from their
// estimates before any step runs.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "classroom/lesson.h"
#include "run/memory_budget.h"
#include "run/pipeline.h"
#include "settings/settings.h"

namespace {

std::string words(int n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += (i ? " w" : "w") + std::to_string(i % 50);
    return text;
}

attn::Settings mha(int heads, int d, int tokens, int batch = 1) {
    attn::Settings s;
    s.attention.variant = attn::Variant::Mha;
    s.attention.heads = heads;
    s.attention.d_out = d;
    s.attention.batch = batch;
    s.d_in = d;
    s.text = words(tokens);
    return s;
}

std::string refusal(const attn::Settings& s) {
    try {
        attn::compute(s);
    } catch (const attn::InputError& e) {
        return e.what();
    }
    return "(computed)";
}

}  // namespace

TEST_CASE("sizes are read as users write them", "[budget]") {
    CHECK(attn::parse_size("--memory-budget", "1000000") == 1000000u);
    CHECK(attn::parse_size("--memory-budget", "512M") == 512ull << 20);
    CHECK(attn::parse_size("--memory-budget", "2G") == 2ull << 30);
    CHECK(attn::parse_size("--memory-budget", "1.5G") == 3ull << 29);
    CHECK(attn::parse_size("--memory-budget", "4096k") == 4096ull << 10);
    for (const char* bad : {"", "G", "2X", "-1G", " 2G", "0x10", "1..5G", "2G ", "0", ".5G", "inf"})
        CHECK_THROWS_AS(attn::parse_size("--memory-budget", bad), attn::ArgsError);
}

TEST_CASE("the estimate grows with the shapes that cost memory", "[budget]") {
    const attn::WorkEstimate small = attn::estimate_work(mha(12, 768, 1024), 1024, 0);
    const attn::WorkEstimate twice = attn::estimate_work(mha(12, 768, 2048), 2048, 0);
    // The T x T stages dominate: twice the tokens is nearly four times the memory.
    CHECK(twice.bytes / small.bytes > 3.0);
    CHECK(twice.bytes / small.bytes < 4.1);
    // Seven T x T floats per head (scores, scaled, mask, masked, weights, dropout
    // mask, dropped weights) are a floor under the estimate of mha at T = 2048.
    CHECK(twice.bytes > 12.0 * 7 * 2048 * 2048 * 4);
    CHECK(twice.bytes < 1.5 * 12.0 * 7 * 2048 * 2048 * 4 + 64e6);
    // Kept stages are what costs: only the output of 8192 tokens fits in well under a
    // GB (the issue's target for attnscope-cli --stages output: 1 GB at 4096, 2 GB at
    // 8192), every head's weights and one head's every stage in ~5 GB.
    const attn::KeptStages output = attn::KeptStages::only({"output"});
    const attn::KeptStages app = attn::KeptStages::overview_and(0);
    const double T = 8192;
    CHECK(attn::estimate_work(mha(12, 768, 8192), 8192, 0, output).bytes < 1e9);
    CHECK(attn::estimate_work(mha(12, 768, 8192), 8192, 0, app).bytes > (12.0 + 6) * T * T * 4);
    CHECK(attn::estimate_work(mha(12, 768, 8192), 8192, 0, app).bytes < 1.5 * (12.0 + 6 + 5 * 2) * T * T * 4);
}

TEST_CASE("too much work is refused in one line naming what to lower", "[budget]") {
    // The issue's 23 GB case: 64 heads, batch 64, 4096 tokens. The refusal comes from the
    // estimate, before the work (which could not have run in this process's memory).
    const std::string e = refusal(mha(64, 256, 4096, 64));
    CHECK(e.find("this needs about") == 0);
    CHECK(e.find("GB of memory") != std::string::npos);
    CHECK(e.find("heads (64)") != std::string::npos);
    CHECK(e.find("4096 tokens") != std::string::npos);
    CHECK(e.find('\n') == std::string::npos);

    attn::Settings small = mha(2, 16, 64);
    CHECK(refusal(small) == "(computed)");
    small.memory_budget = 1u << 20;  // 1 MB: less than the program itself is counted
    CHECK(refusal(small).find("(budget 1 MB)") != std::string::npos);
}

TEST_CASE("the time estimate counts every repetition of --time", "[budget]") {
    attn::Settings s = mha(12, 768, 2048);
    attn::Budget b = attn::budget_for(s);
    b.output = attn::OutputRequest{};
    b.output->stages = {"output"};  // printing every stage is another test's
    CHECK_NOTHROW(attn::check_budget(attn::estimate_run(s), b));
    b.output->time_runs = 10000;
    CHECK_THROWS_WITH(attn::check_budget(attn::estimate_run(s), b), Catch::Contains("lower --time (10000)"));
}

TEST_CASE("a lesson too large to check at start-up is refused before any step runs", "[budget][lesson]") {
    const std::string hostile = R"({"format": "attnscope-lesson", "version": 1, "id": "big", "title": "Big",
        "steps": [{"title": "huge", "flags": ["--variant", "mha", "--heads", "64", "--d-in", "2048",
                   "--d-out", "2048", "--text", ")" + words(2000) + R"("],
                   "stage": "weights", "text": "see"}]})";
    attn::LessonWork work;
    std::string error;
    try {
        attn::parse_lesson(hostile, "big.json", &work);
    } catch (const attn::LessonError& e) {
        error = e.what();
    }
    CHECK(work.steps_estimated == 1);
    CHECK(work.steps_run == 0);  // refused from its estimate: the step never ran
    CHECK(error.find("big.json") != std::string::npos);
    CHECK(error.find("too large for a lesson") != std::string::npos);
}

namespace {
// The steps loading runs: a lesson on a cache model (present where this runs) runs a step
// when it is shown.
int steps_of(const std::vector<attn::Lesson>& lessons) {
    int steps = 0;
    for (const attn::Lesson& lesson : lessons)
        if (lesson.model.empty()) steps += static_cast<int>(lesson.steps.size());
    return steps;
}
}  // namespace

TEST_CASE("every shipped lesson fits the lesson budget, its steps estimated before they run", "[budget][lesson]") {
    // The app checks every lesson at start-up by running each step: what that costs is
    // the estimates' sum, bounded here (the wall clock is a benchmark's question).
    const attn::LessonLibrary library = attn::load_lessons(attn::lessons_dir());
    CHECK(library.errors.empty());
    CHECK(library.lessons.size() >= 10);
    CHECK(library.work.steps_estimated == steps_of(library.lessons));
    CHECK(library.work.steps_run == steps_of(library.lessons));
    INFO("the shipped lessons' steps are estimated to run in " << library.work.estimated_seconds << " s");
    CHECK(library.work.estimated_seconds < 1.0);
}

TEST_CASE("every batch element's dropout draws are kept as bits until the output", "[budget]") {
    // The draws of every batch element and head are made first, in torch's order, and
    // kept to the end: one bit each (as floats, 64 elements of 8 heads of 1024 tokens
    // held 2.1 GB).
    attn::Settings s;
    s.attention.variant = attn::Variant::Causal;
    s.attention.heads = 8;
    s.attention.d_out = 64;
    s.attention.dropout = 0.1;
    s.d_in = 64;
    const double one = attn::estimate_work(s, 1024, 0).bytes;
    s.attention.batch = 64;
    const double many = attn::estimate_work(s, 1024, 0).bytes;
    const double bits = 63.0 * 8 * 1024 * 1024 / 8;  // 63 more elements' draws, in bytes
    const double outputs = 63.0 * 1024 * 8 * 64 * 4;  // and their outputs (T x heads * d_out)
    CHECK(many - one > bits + outputs);
    CHECK(many - one < 1.3 * (bits + outputs));
}

TEST_CASE("a cached embedding does not bypass the budget", "[budget]") {
    // The app keeps Embedded across changes of heads and batch and calls attend directly.
    attn::Settings s = mha(1, 256, 4096);
    s.memory_budget = 2ull << 30;
    const attn::Embedded e = attn::embed_texts(s);
    s.attention.heads = 64;
    CHECK_THROWS_WITH(attn::attend(s, e), Catch::StartsWith("this needs about") && Catch::Contains("heads (64)"));
}

TEST_CASE("the CLI's budget counts the time to write its stages", "[budget]") {
    attn::Settings s = mha(12, 768, 4096);
    attn::Budget b = attn::budget_for(s);
    b.bytes = 64.0 * (1ull << 30);  // memory is not what this checks
    const attn::WorkEstimate all = attn::estimate_run(s);
    CHECK_NOTHROW(attn::check_budget(all, b));  // the app draws them, it does not print them
    b.output = attn::OutputRequest{};
    CHECK_THROWS_WITH(attn::check_budget(all, b), Catch::Contains("print fewer stages (--stages output)"));
    b.output->stages = {"output"};
    CHECK_NOTHROW(attn::check_budget(all, b));
}

TEST_CASE("numbers are plain decimals", "[budget][args]") {
    const auto dropout = [](const std::string& text) {
        return attn::parse_settings({"--variant", "causal", "--dropout", text}).settings.attention.dropout;
    };
    CHECK(dropout("0.5") == 0.5);
    CHECK(dropout("1e-1") == 0.1);
    CHECK(dropout("5E-1") == 0.5);
    CHECK(dropout("1e-05") == 1e-5);  // how a session file writes a small rate
    for (const char* bad : {" 0.5", "0x1p-2", "inf", "nan", "1e", "", "+0.5", ".5", "1.", "1.e5", "-.5", "0.5 "})
        CHECK_THROWS_WITH(dropout(bad), Catch::StartsWith("--dropout needs a number such as 0.5"));
}

TEST_CASE("a hostile lesson file among the shipped ones is refused at once", "[budget][lesson]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("attnscope-lessons-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const auto& entry : fs::directory_iterator(attn::lessons_dir()))
        if (entry.path().extension() == ".json") fs::copy_file(entry.path(), dir / entry.path().filename());
    const fs::path hostile = dir / "zz-hostile.json";
    std::ofstream(hostile) << R"({"format": "attnscope-lesson", "version": 1, "id": "x", "title": "X",
        "steps": [{"title": "fine", "stage": "weights", "text": "the book"},
                  {"title": "huge", "flags": ["--variant", "mha", "--heads", "64", "--d-in", "2048",
                   "--d-out", "2048", "--text", ")" + words(2000) + R"("], "stage": "weights", "text": "see"}]})";
    const attn::LessonLibrary library = attn::load_lessons(dir.string());
    fs::remove_all(dir);
    REQUIRE(library.errors.size() == 1);
    // Both of the hostile lesson's steps were estimated and neither ran, "fine" included:
    // the estimates of a whole lesson come before any of its runs.
    CHECK(library.work.steps_estimated == steps_of(library.lessons) + 2);
    CHECK(library.work.steps_run == steps_of(library.lessons));
    CHECK(library.errors[0].find("zz-hostile.json, step 2 (\"huge\"): too large for a lesson") != std::string::npos);
    CHECK(library.errors[0].find("heads (64)") != std::string::npos);
    CHECK(library.lessons.size() >= 10);
}
