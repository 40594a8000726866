// The lesson on a real model (assets/lessons/open-model.json, issue 36): no checkpoint of
// one can be shipped, so it runs on a Llama-family model of the Hugging Face cache named
// by its repository id, and is listed with how to get the model where the cache has none.
// Here the cache is a folder of this test's whose HuggingFaceTB/SmolLM2-135M is a copy of
// the golden Qwen2.5 model (3 layers, 4 query heads in 2 groups) with a one-character
// tokenizer.json: every step of the shipped lesson must run and fill every placeholder.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "classroom/lesson.h"
#include "model/model_source.h"
#include "run/run_session.h"
#include "llama_fixture.h"

namespace {

constexpr const char* kRepo = "HuggingFaceTB/SmolLM2-135M";

// $HF_HUB_CACHE for this test: empty, or holding kRepo (refs/main naming its snapshot).
struct TestHub {
    std::string dir = (std::filesystem::temp_directory_path() / ("attnscope-hub-" + std::to_string(::getpid()))).string();
    explicit TestHub(bool with_model) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        if (with_model) {
            const std::string repo = dir + "/models--HuggingFaceTB--SmolLM2-135M";
            attn::test::copy_golden_llama("qwen2-bias-f16-shards", repo + "/snapshots/0123abcd", true);
            std::filesystem::create_directories(repo + "/refs");
            std::ofstream(repo + "/refs/main") << "0123abcd";
        }
        ::setenv("HF_HUB_CACHE", dir.c_str(), 1);
    }
    ~TestHub() {
        ::unsetenv("HF_HUB_CACHE");
        std::filesystem::remove_all(dir);
    }
};

const attn::Lesson* find(const attn::LessonLibrary& library, const std::string& id) {
    for (const attn::Lesson& l : library.lessons)
        if (l.id == id) return &l;
    return nullptr;
}

}  // namespace

TEST_CASE("without its model the real-model lesson is listed with how to get it, and nothing runs", "[lessons][llama]") {
    const TestHub hub(false);
    const attn::LessonLibrary library = attn::load_lessons(attn::lessons_dir());
    CHECK(library.errors.empty());
    CHECK(find(library, "open-model") == nullptr);
    REQUIRE(library.missing_model.size() == 1);
    const attn::Lesson& missing = library.missing_model[0];
    CHECK(missing.id == "open-model");
    CHECK(missing.model == kRepo);
    CHECK(attn::missing_model_note(missing.model) ==
          "needs HuggingFaceTB/SmolLM2-135M from the Hugging Face cache: attnscope-cli --model HuggingFaceTB/SmolLM2-135M downloads it");
    CHECK_THROWS_WITH(attn::load_model(kRepo, 0), Catch::Contains("is not in the Hugging Face cache") &&
                                                       Catch::Contains("attnscope-cli --model " + std::string(kRepo) + " downloads it"));
}

TEST_CASE("with its model in the cache every step of the real-model lesson runs and fills every placeholder",
          "[lessons][llama]") {
    const TestHub hub(true);
    const attn::LoadedModel model = attn::load_model(kRepo, 0);  // the repository id names the cache's folder
    REQUIRE(model.model->llama_weights());
    CHECK(model.name == kRepo);
    CHECK(model.file.find("models--HuggingFaceTB--SmolLM2-135M/snapshots/0123abcd") != std::string::npos);

    const attn::LessonLibrary library = attn::load_lessons(attn::lessons_dir());
    CHECK(library.errors.empty());
    CHECK(library.missing_model.empty());
    const attn::Lesson* lesson = find(library, "open-model");
    REQUIRE(lesson != nullptr);
    CHECK(lesson->model == kRepo);
    attn::LessonWork work;
    attn::check_model_lesson(*lesson, &work);  // throws LessonError on any step
    CHECK(work.steps_run == static_cast<int>(lesson->steps.size()));
    for (const attn::LessonStep& step : lesson->steps) {
        INFO(step.where);
        const attn::Run run = attn::compute_view(attn::step_settings(step), model);
        const std::string text = attn::render_step_text(step, run);
        CHECK(text.find("—") == std::string::npos);  // a value the run lacks
        CHECK(text.find('{') == std::string::npos);
    }
    // The next tokens are the model's own tokenizer's, not GPT-2's pieces.
    const attn::LessonStep& last = lesson->steps.back();
    const attn::Run run = attn::compute_view(attn::step_settings(last), model);
    REQUIRE(run.model);
    const std::string first = attn::model_token_text(run.model->model, run.model->next_tokens[0].id);
    CHECK(attn::render_step_text(last, run).find("are '" + first + "' (") != std::string::npos);
}

TEST_CASE("a lesson on a cache model names one model in every step", "[lessons][llama]") {
    const std::string two = R"({"format": "attnscope-lesson", "version": 1, "id": "t", "title": "T", "steps": [
        {"title": "One", "flags": ["--model", "ORG/first", "--text", "Hello"], "stage": "weights", "text": "ok"},
        {"title": "Two", "flags": ["--model", "ORG/second", "--text", "Hello"], "stage": "weights", "text": "ok"}]})";
    CHECK_THROWS_WITH(attn::parse_lesson(two, "teacher.json"),
                      "teacher.json, step 2 (\"Two\"): a lesson runs on one cache model; this step names ORG/second, an "
                      "earlier one ORG/first");
    const std::string mixed = R"({"format": "attnscope-lesson", "version": 1, "id": "t", "title": "T", "steps": [
        {"title": "One", "flags": ["--model", "ORG/first", "--text", "Hello"], "stage": "weights", "text": "ok"},
        {"title": "Two", "flags": ["--text", "Hello"], "stage": "weights", "text": "ok"}]})";
    CHECK_THROWS_WITH(attn::parse_lesson(mixed, "teacher.json"),
                      "teacher.json, step 2 (\"Two\"): every step of a lesson on ORG/first runs on it (--model)");
}
