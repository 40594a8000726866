// The run session (core/run/run_session.h): what a change of settings costs. A model's
// full run goes in steps; another picked position, an edit after the first tokens and
// more generated tokens come at once from the run on screen and are what a full run
// gives; another model, a head switched off or other sampling take a full run again.
// The golden f32 checkpoint (vocabulary 97: GPT-2 ids below 97 are single characters).
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "run/run_session.h"

namespace {

const std::string kSmall = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/checkpoints/f32-config";

attn::RunSession::Request model_request(const std::string& text) {
    attn::RunSession::Request r;
    r.settings.model = kSmall;
    r.settings.text = text;
    r.settings.layer = 1;
    r.detail_head = 2;
    r.overview_first = true;  // an edit may extend the last run
    return r;
}

// Steps the session's run to its end; the number of steps it took in `steps`.
std::shared_ptr<attn::Run> finish(attn::RunSession& session, std::shared_ptr<attn::Run> started, int& steps) {
    steps = 0;
    while (!started) {
        REQUIRE(session.stepping());
        started = session.step();
        ++steps;
    }
    return started;
}

const attn::Matrix& weights(const attn::Run& run, size_t layer, size_t head) {
    return run.model->trace->blocks[layer].attention.heads[head].at("weights");
}

}  // namespace

TEST_CASE("a run session reuses the run on screen where it can, and runs in full where it must", "[model_run][session]") {
    attn::RunSession session(false);
    int steps = 0;
    const std::shared_ptr<attn::Run> first = finish(session, session.start(model_request("a!b")), steps);
    CHECK(steps > 1);  // a full run: its layers, its logits, its next tokens
    CHECK_FALSE(first->model->extended);
    CHECK(session.last_model_run() == first->model);

    // Typed at the end: the run on screen extended from its KV cache, at once.
    const std::shared_ptr<attn::Run> typed = session.start(model_request("a!b!c!d"));
    REQUIRE(typed);
    CHECK(typed->model->extended);
    CHECK_FALSE(session.stepping());
    attn::RunSession fresh(false);
    const std::shared_ptr<attn::Run> full = finish(fresh, fresh.start(model_request("a!b!c!d")), steps);
    REQUIRE(full->model->tokens.ids == typed->model->tokens.ids);
    for (size_t l = 0; l < 2; ++l)
        for (size_t h = 0; h < full->model->trace->blocks[l].attention.heads.size(); ++h) {
            const attn::Matrix& ours = weights(*typed, l, h);
            const attn::Matrix& theirs = weights(*full, l, h);
            CHECK((ours - theirs).cwiseAbs().maxCoeff() <= 1e-5f * theirs.cwiseAbs().maxCoeff());
        }
    CHECK(typed->model->next_tokens.front().id == full->model->next_tokens.front().id);

    // Another position picked on a full run: a row of the output head, at once. (An
    // extended run keeps its last row's logits only: there it takes a full run.)
    attn::RunSession::Request picked = model_request("a!b!c!d");
    picked.settings.next_at = 2;
    const std::shared_ptr<attn::Run> at = fresh.start(picked);
    REQUIRE(at);
    CHECK(at->model->next_position == 2);
    CHECK_FALSE(session.start(picked));
    finish(session, nullptr, steps);

    // More generated tokens: cached steps, at once; the ids a run generating them all gives.
    attn::RunSession::Request more = model_request("a!b!c!d");
    more.settings.generate = 3;
    const std::shared_ptr<attn::Run> generated = session.start(more);
    REQUIRE(generated);
    const std::shared_ptr<attn::Run> at_once = finish(fresh, fresh.start(more), steps);
    CHECK(generated->model->generated == at_once->model->generated);

    // A head switched off takes a full run (the cache's steps have no hook).
    attn::RunSession::Request off = model_request("a!b!c!d");
    off.settings.ablate = "0.1";  // layer 0, head 1
    CHECK_FALSE(session.start(off));
    CHECK(session.stepping());
    CHECK(session.next_step().rfind(kSmall + ": layer 1 of", 0) == 0);
    finish(session, nullptr, steps);

    // Another model loads (and says so first).
    attn::RunSession::Request other = model_request("a!b");
    other.settings.model = "gpt-ch4";
    CHECK(session.loads_model(other.settings));
    CHECK_FALSE(session.loads_model(model_request("x").settings));
}

TEST_CASE("a run session's failed start leaves nothing in steps and the next request runs", "[model_run][session]") {
    attn::RunSession session(false);
    attn::RunSession::Request bad = model_request(std::string(200, 'a'));  // past the context of 16
    CHECK_THROWS_WITH(session.start(bad), Catch::Contains("the model reads at most 16"));
    CHECK_FALSE(session.stepping());
    int steps = 0;
    CHECK(finish(session, session.start(model_request("a!b")), steps)->model->tokens.ids.size() == 3);
    // The chapter 3 module, at once on this session (its heads in parallel), in steps on a page's.
    attn::RunSession::Request chapter;
    chapter.settings.text = "Your journey starts with one step";
    CHECK(session.start(chapter));
    attn::RunSession page(true);
    CHECK(finish(page, page.start(chapter), steps)->trace.heads.size() == session.start(chapter)->trace.heads.size());
    CHECK(steps > 1);
}
