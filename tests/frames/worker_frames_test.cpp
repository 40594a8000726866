// The browser's worker (app/state/worker_frames.cpp: jobs on the page's one thread, between
// frames), built for the host so that it is tested where the desktop's is: a long chapter 3
// run goes a head a step, its progress said between frames, and gives attend()'s run.
#include <catch2/catch.hpp>

#include "run/pipeline.h"
#include "settings/settings.h"
#include "state/worker.h"

namespace {

attn::Settings long_mha() {
    std::string text;
    for (int i = 0; i < 128; ++i) text += "the cat sat on a warm mat tonight ";  // 1,024 tokens
    return attn::parse_settings({"--variant", "mha", "--heads", "12", "--d-in", "768", "--d-out", "768",
                                 "--vocab-size", "100", "--text", text})
        .settings;
}

}  // namespace

TEST_CASE("the browser's worker runs a long chapter 3 run a head a step between frames", "[frames]") {
    app::Worker worker([] {});
    worker.set_slice(std::chrono::microseconds(0));  // a step a frame, however fast the machine
    const attn::Settings s = long_mha();
    worker.submit(s, nullptr, 2);
    CHECK_FALSE(worker.wait_idle(std::chrono::microseconds(8000)));  // too long for a frame
    CHECK(worker.activity() == "computing…");

    std::vector<std::string> said;  // what each frame after a take() would show
    std::vector<int> done;
    std::optional<app::Outcome> out;
    for (int frame = 0; !out && frame < 1000; ++frame) {
        out = worker.take();
        if (!out && worker.progress().total > 0) {
            said.push_back(worker.activity());
            done.push_back(worker.progress().done);
            CHECK(worker.progress().total == 14);  // the projections, 12 heads, the heads combined
        }
    }
    REQUIRE(out);
    REQUIRE(out->error == "");
    REQUIRE(out->run);
    CHECK_FALSE(worker.busy());
    // The frame that started the run (its embedding) took no step; then one a frame, each
    // frame saying what comes next.
    std::vector<std::string> expected = {"mha: projections…"};
    for (int h = 1; h <= 12; ++h) expected.push_back("mha: head " + std::to_string(h) + " of 12…");
    expected.push_back("mha: combining the heads…");
    CHECK(said == expected);
    for (size_t i = 0; i < done.size(); ++i) CHECK(done[i] == static_cast<int>(i));

    // attend()'s run with what the worker kept. Not bit for bit here: attend() runs the heads
    // in parallel, each product on one thread, while a head alone splits its products over
    // the threads, and OpenBLAS's Haswell kernels sum a split's edges in another order. In
    // the browser both are one thread (test_forward_steps.cpp checks the bits where no
    // product is split). Within 1e-6 of each stage's scale.
    const attn::Embedded e = attn::embed_texts(s);
    const attn::KeptStages keep = attn::RunSession::stages_to_keep(s, 1024, 0, 2, false);
    const attn::Run whole = attn::attend(s, e, keep);
    const attn::Run& got = *out->run;
    REQUIRE(got.trace.heads.size() == 12);
    const auto close = [](const attn::Matrix& a, const attn::Matrix& b) {
        const float scale = b.cwiseAbs().maxCoeff(), gap = (a - b).cwiseAbs().maxCoeff();
        INFO("largest difference " << gap << " of a scale " << scale);
        CHECK(a.rows() == b.rows());
        CHECK(gap <= 1e-6f * scale);
    };
    close(got.trace.heads[2].at("weights"), whole.trace.heads[2].at("weights"));
    close(got.trace.heads[11].at("values"), whole.trace.heads[11].at("values"));
    close(got.trace.output[0], whole.trace.output[0]);
    CHECK(got.trace.model.stages.front().name == "token_embeddings");
}

TEST_CASE("the browser's worker: a short run in the frame, a refused one in one line", "[frames]") {
    app::Worker worker([] {});
    worker.submit(attn::parse_settings({"--variant", "mha", "--heads", "2"}).settings, nullptr);
    CHECK(worker.wait_idle(std::chrono::microseconds(16000)));  // the book's 6 tokens fit a frame
    std::optional<app::Outcome> out = worker.take();
    REQUIRE(out);
    CHECK(out->run);

    attn::Settings huge = long_mha();
    huge.memory_budget = 1000;  // bytes: refused when the steps are made
    worker.submit(huge, nullptr);
    out.reset();
    for (int frame = 0; !out && frame < 10; ++frame) out = worker.take();
    REQUIRE(out);
    CHECK_FALSE(out->run);
    CHECK_THAT(out->error, Catch::Contains("budget"));
    CHECK(worker.progress().total == 0);
}

TEST_CASE("the browser's worker reruns a dropout change on a long run a head a step", "[frames]") {
    app::Worker worker([] {});
    attn::Settings s = long_mha();
    s.attention.dropout = 0.1;
    worker.submit(s, nullptr, 2);
    std::optional<app::Outcome> first;
    for (int frame = 0; !first && frame < 1000; ++frame) first = worker.take();
    REQUIRE(first);
    REQUIRE(first->run);
    REQUIRE(first->run->trace.kept.can_rerun_output(12));  // what the app's dropout-only change needs

    worker.set_slice(std::chrono::microseconds(0));  // a step a frame
    attn::Settings changed = s;
    changed.attention.dropout = 0.5;
    worker.submit(changed, first->run, 2);
    CHECK_FALSE(worker.wait_idle(std::chrono::microseconds(8000)));  // too long for a frame
    std::vector<std::string> said;
    std::optional<app::Outcome> out;
    for (int frame = 0; !out && frame < 1000; ++frame) {
        out = worker.take();
        if (!out && worker.progress().total > 0) said.push_back(worker.activity());
    }
    REQUIRE(out);
    REQUIRE(out->error == "");
    REQUIRE(out->run);
    CHECK(out->dropout_only);
    std::vector<std::string> expected = {"mha: dropout…"};
    for (int h = 1; h <= 12; ++h) expected.push_back("mha: head " + std::to_string(h) + " of 12…");
    expected.push_back("mha: combining the heads…");
    CHECK(said == expected);

    // recompute_dropout()'s run: the draws bit for bit; the products within 1e-6 of their
    // scale (a lone head splits them over threads, as in the first test).
    attn::Run whole = *first->run;
    attn::recompute_dropout(whole, changed);
    const attn::Run& got = *out->run;
    for (const char* stage : {"dropout_mask", "dropped_weights"})
        CHECK((got.trace.heads[7].at(stage).array() == whole.trace.heads[7].at(stage).array()).all());
    for (const attn::Matrix* m : {&got.trace.heads[7].at("context"), &got.trace.output[0]}) {
        const attn::Matrix& want = m == &got.trace.output[0] ? whole.trace.output[0] : whole.trace.heads[7].at("context");
        const float scale = want.cwiseAbs().maxCoeff(), gap = (*m - want).cwiseAbs().maxCoeff();
        INFO("largest difference " << gap << " of a scale " << scale);
        CHECK(gap <= 1e-6f * scale);
    }
    // Not the run it started from: the rate changed the draws.
    CHECK_FALSE((got.trace.heads[7].at("dropout_mask").array() == first->run->trace.heads[7].at("dropout_mask").array()).all());
}
