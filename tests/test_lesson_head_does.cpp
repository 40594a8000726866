// Lesson 5.6 (assets/lessons/5.6-what-does-a-head-do.json) says what the shipped
// attention-only model's heads do on a sentence said twice: a previous-token head in layer
// 0, an induction head in layer 1 that copies, a copy lost when either is switched off, a
// copy taken from another text by patching, and the copy appearing in layer 1 under the
// logit lens. Each claim is checked against the run its step shows, so a retrained model
// that no longer does it fails here rather than in front of a class.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "classroom/lesson.h"
#include "model/model_source.h"
#include "run/run_session.h"

namespace {

const attn::Lesson& head_does() {
    static const attn::Lesson lesson = attn::load_lesson(attn::lessons_dir() + "/5.6-what-does-a-head-do.json");
    return lesson;
}

struct Shown {
    attn::Run run;
    explicit Shown(const attn::LessonStep& step) : run(attn::compute_view(attn::step_settings(step))) {}
    const attn::ModelRun& model() const { return *run.model; }
    const attn::Matrix& weights(int head) const { return run.trace.heads.at(static_cast<size_t>(head)).at("weights"); }
    std::string next() const { return attn::quoted_token(model().model, model().next_tokens.at(0).id); }
    std::string before() const { return attn::quoted_token(model().model, model().baseline_next_tokens.at(0).id); }
};

// The sentence's second copy: token 21 (' shall') last followed ' shall' at 6, by ' assemble' at 7.
constexpr int kLast = 21, kCopied = 7;

}  // namespace

TEST_CASE("lesson 5.6 claims what the attention-only model's heads do", "[lessons][model]") {
    const auto& steps = head_does().steps;
    REQUIRE(steps.size() == 6);
    REQUIRE(*attn::step_settings(steps[0]).model == attn::kAttentionOnlyModel);
    SECTION("step 1: head 0.0 looks one token back, the model's best previous-token head") {
        const Shown s(steps[0]);
        for (const attn::LessonCell& cell : steps[0].cells) {
            CHECK(cell.col == cell.row - 1);
            CHECK(s.weights(0)(cell.row, cell.col) > 0.9f);
        }
        const auto& scores = s.model().head_scores;
        for (size_t l = 0; l < scores.size(); ++l)
            for (size_t h = 0; h < scores[l].size(); ++h)
                CHECK(scores[l][h].previous_token <= scores[0][0].previous_token);
        CHECK(scores[0][0].previous_token > 0.6);
    }
    SECTION("step 2: head 1.3 attends to the token after the earlier copy, and the model copies it") {
        const Shown s(steps[1]);
        for (const attn::LessonCell& cell : steps[1].cells) {
            INFO("row " << cell.row);
            CHECK(s.weights(3)(cell.row, cell.col) > 0.5f);
            CHECK(s.run.tokens.ids[static_cast<size_t>(cell.col) - 1] == s.run.tokens.ids[static_cast<size_t>(cell.row)]);
        }
        CHECK(s.next() == "' assemble'");
        CHECK(s.run.tokens.tokens[kCopied] == " assemble");
        CHECK(s.model().next_tokens[0].prob > 0.5f);
    }
    SECTION("step 3: with layer 1's induction heads off, the copy is gone") {
        const Shown s(steps[2]);
        CHECK(s.before() == "' assemble'");
        CHECK(s.next() != "' assemble'");
        CHECK(s.model().next_tokens[0].prob < 0.5f);
    }
    SECTION("step 4: with the previous-token head off, the induction head finds nothing") {
        const Shown s(steps[3]);
        CHECK(s.weights(3)(kLast, kCopied) < 0.1f);
        CHECK(s.weights(3)(kLast, 0) > 0.5f);  // parked on the first token
        CHECK(s.before() == "' assemble'");
        CHECK(s.next() != "' assemble'");
    }
    SECTION("step 5: patched from the text whose first copy says 'meet', the model says it") {
        const Shown s(steps[4]);
        CHECK(s.before() == "' assemble'");
        CHECK(s.next() == "' meet'");
    }
    SECTION("step 6: a layer-0 head matters as much as any, and the copy appears in layer 1") {
        const Shown s(steps[5]);
        const auto& effects = s.model().head_effects;
        REQUIRE(effects.size() == 2);
        double layer0 = 0.0, layer1 = 0.0;
        for (const double e : effects[0]) layer0 = std::min(layer0, e);
        for (const double e : effects[1]) layer1 = std::min(layer1, e);
        CHECK(layer0 <= layer1);  // the most harmful head is in layer 0
        const attn::LogitLens& lens = s.model().lens;
        REQUIRE(lens.size() == 3);
        const auto top = [&](size_t entry) { return attn::quoted_token(s.model().model, lens[entry].back().front().id); };
        CHECK(top(0) == "' shall'");  // the tied output head: a token predicts itself
        CHECK(top(1) != "' assemble'");
        CHECK(top(2) == "' assemble'");
    }
}
