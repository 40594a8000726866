// The placeholders of lessons on a trained model's heads ({prev_score}, {best_prev_head},
// {next_token[0]}, …; classroom/lesson_model_scalars.h), each held against a value the test
// computes another way from the same run: the scores from the head's weights on screen
// (head_score), the best head by a search of its own, the next token from the tokenizer.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "classroom/lesson.h"
#include "lesson_probe.h"
#include "model/head_scores.h"
#include "run/model_run.h"
#include "text/gpt2_tokenizer.h"

namespace {

using ModelStep = LessonProbe;

std::string two(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", x);
    return buf;
}

const std::vector<std::string> kFlags = {"--model", "sotu-small", "--layer", "1", "--head", "2", "--text",
                                         "The Congress of the United States. The Congress of the United States."};

}  // namespace

TEST_CASE("model placeholders: the head's scores are those of the weights on screen", "[lessons][model]") {
    ModelStep s(kFlags, 2);
    REQUIRE(s.run.model);
    const std::vector<int64_t>& ids = s.run.tokens.ids;
    CHECK(s("{layer}") == "1");
    for (const int head : {2, 4}) {
        const attn::Matrix& w = s.run.trace.heads.at(static_cast<size_t>(head)).at("weights");
        const std::string prefix = head == 2 ? "" : "head4.";
        CAPTURE(head);
        CHECK(s("{" + prefix + "prev_score}") == two(attn::head_score(w, ids, attn::HeadType::PreviousToken)));
        CHECK(s("{" + prefix + "dup_score}") == two(attn::head_score(w, ids, attn::HeadType::DuplicateToken)));
        CHECK(s("{" + prefix + "induction_score}") == two(attn::head_score(w, ids, attn::HeadType::Induction)));
        CHECK(s("{" + prefix + "sink_score}") == two(attn::head_score(w, ids, attn::HeadType::FirstToken)));
    }
    // Uniform causal attention: row i gives each of its i + 1 keys 1 / (i + 1).
    const auto T = static_cast<Eigen::Index>(ids.size());
    attn::Matrix uniform = attn::Matrix::Zero(T, T);
    for (Eigen::Index i = 0; i < T; ++i) uniform.row(i).head(i + 1).setConstant(1.0f / static_cast<float>(i + 1));
    CHECK(s("{chance_prev}") == two(attn::head_score(uniform, ids, attn::HeadType::PreviousToken)));
    CHECK(s("{chance_sink}") == two(attn::head_score(uniform, ids, attn::HeadType::FirstToken)));
}

TEST_CASE("model placeholders: the best head of a type, and the next tokens", "[lessons][model]") {
    ModelStep s(kFlags, 2);
    const attn::ModelRun& m = *s.run.model;
    // The model's head with the highest previous-token score, first of equals.
    double best = -1.0;
    std::string at;
    for (size_t l = 0; l < m.trace->blocks.size(); ++l)
        for (size_t h = 0; h < m.trace->blocks[l].attention.heads.size(); ++h) {
            const double score = attn::head_score(m.trace->blocks[l].attention.heads[h].at("weights"), s.run.tokens.ids,
                                                  attn::HeadType::PreviousToken);
            if (score > best + 1e-12) best = score, at = std::to_string(l) + "." + std::to_string(h);
        }
    CHECK(s("{best_prev_head}") == at);
    CHECK(s("{best_prev_score}") == two(best));
    const attn::Gpt2Tokenizer& gpt2 = attn::gpt2_tokenizer();
    CHECK(s("{next_token[0]}") == "'" + gpt2.token_display(m.next_tokens[0].id) + "'");
    CHECK(s("{next_prob[9]}") == two(static_cast<double>(m.next_tokens[9].prob) * 100.0) + "%");
    CHECK(s("after {token[2]}: {next_token[1]}") == "after" + std::string(" ") + s.run.tokens.tokens[2] + ": '" +
                                                     gpt2.token_display(m.next_tokens[1].id) + "'");
}

TEST_CASE("model placeholders: a view without them says why in one line", "[lessons][model]") {
    ModelStep model(kFlags, 2);
    CHECK(model.error("{next_token[10]}").find("the 10 most probable") != std::string::npos);
    const std::string heads = std::to_string(model.run.trace.heads.size());  // one past the last, counted from 0
    CHECK(model.error("{head" + heads + ".prev_score}").find("does not exist: the view has " + heads + " head(s)") !=
          std::string::npos);
    CHECK(model.error("{best_nothing_head}").find("no stage") != std::string::npos);
    ModelStep module({"--text", "Your journey starts", "--variant", "mha-wrapper"}, 0);
    CHECK(module.error("{prev_score}").find("needs a model's view (--model)") != std::string::npos);
    CHECK(module.error("{next_token[0]}").find("needs a model's view") != std::string::npos);
}

TEST_CASE("model placeholders: before a change, the lens and the heads' effects", "[lessons][model]") {
    const attn::Gpt2Tokenizer& gpt2 = attn::gpt2_tokenizer();
    std::vector<std::string> flags = kFlags;
    for (const char* f : {"--ablate", "1.1,2.3", "--logit-lens", "--head-effects", "prob:262"}) flags.push_back(f);
    ModelStep s(flags, 2);
    const attn::ModelRun& m = *s.run.model;
    REQUIRE(!m.baseline_next_tokens.empty());
    CHECK(s("{baseline_token[0]}") == "'" + gpt2.token_display(m.baseline_next_tokens[0].id) + "'");
    CHECK(s("{baseline_prob[2]}") == two(static_cast<double>(m.baseline_next_tokens[2].prob) * 100.0) + "%");
    CHECK(s("{baseline_prob[0]}") != s("{next_prob[0]}"));  // two heads off change the prediction
    // Entry 0 reads the embeddings; the last is the model's own output.
    const int last = static_cast<int>(m.lens.size()) - 1;
    CHECK(last == static_cast<int>(m.trace->blocks.size()));
    CHECK(s("{lens_token[" + std::to_string(last) + "]}") == s("{next_token[0]}"));
    CHECK(s("{lens_prob[" + std::to_string(last) + "]}") == s("{next_prob[0]}"));
    CHECK(s("{lens_token[0]}") == "'" + gpt2.token_display(m.lens[0].back()[0].id) + "'");
    // The head that moved P(' the') most, by a search of the test's own.
    double largest = -1.0, change = 0.0;
    std::string at;
    for (size_t l = 0; l < m.head_effects.size(); ++l)
        for (size_t h = 0; h < m.head_effects[l].size(); ++h)
            if (std::abs(m.head_effects[l][h]) > largest)
                largest = std::abs(m.head_effects[l][h]), change = m.head_effects[l][h],
                at = std::to_string(l) + "." + std::to_string(h);
    CHECK(s("{top_effect_head}") == at);
    char points[48];
    std::snprintf(points, sizeof points, "%.2f points", std::abs(change) * 100.0);
    CHECK(s("{top_effect}") == (change < 0 ? "\xe2\x88\x92" : "+") + std::string(points));
    // Without the change, the lens or the effects, each says which flag it needs.
    ModelStep plain(kFlags, 2);
    CHECK(plain.error("{baseline_token[0]}").find("switches heads off or patches them") != std::string::npos);
    CHECK(plain.error("{lens_token[1]}").find("--logit-lens") != std::string::npos);
    CHECK(plain.error("{top_effect_head}").find("--head-effects") != std::string::npos);
    CHECK(s.error("{lens_token[" + std::to_string(last + 1) + "]}").find("after each block") != std::string::npos);
}
