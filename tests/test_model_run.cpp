// A model run as the app and the CLI make it (core/run/model_run.h): appending tokens
// from the KV cache gives what a full run of the longer text gives, the layer view is the
// chosen layer's attention, and --next-at's next tokens are those of the text cut there.
// The golden f32 checkpoint (vocabulary 97: GPT-2 ids below 97 are single characters such
// as 'a' 64 and '!' 0).
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "run/model_run.h"
#include "run/run_cache_size.h"
#include "text/gpt2_tokenizer.h"

namespace {

attn::LoadedModel small_model() {
    return attn::load_model(std::string(ATTNSCOPE_TESTS_DIR) + "/golden/checkpoints/f32-config", 0);
}

attn::ModelRun run_text(const attn::LoadedModel& model, const std::string& text, int layer = 1, int head = 2) {
    attn::Settings s;
    s.model = model.name;
    s.text = text;
    s.layer = layer;
    s.head = head;
    return attn::run_model(s, model, attn::default_budget());
}

// Largest |a - b| over the matrices, relative to b's largest |value|.
double relative_gap(const attn::Matrix& a, const attn::Matrix& b) {
    REQUIRE(a.rows() == b.rows());
    REQUIRE(a.cols() == b.cols());
    return (a - b).cwiseAbs().maxCoeff() / std::max(1e-30f, b.cwiseAbs().maxCoeff());
}

}  // namespace

TEST_CASE("appending tokens from the KV cache gives the full run's weights and next tokens", "[model_run]") {
    const attn::LoadedModel model = small_model();
    const attn::ModelRun shorter = run_text(model, "a!b");
    const attn::ModelRun full = run_text(model, "a!b!c!d");
    const std::optional<attn::ModelRun> extended =
        attn::extend_model_run(shorter, attn::gpt2_tokenizer().encode("a!b!c!d"));
    REQUIRE(extended);
    CHECK(extended->extended);
    CHECK(extended->tokens.ids == full.tokens.ids);
    REQUIRE(extended->trace->blocks.size() == full.trace->blocks.size());
    for (size_t l = 0; l < full.trace->blocks.size(); ++l)
        for (size_t h = 0; h < full.trace->blocks[l].attention.heads.size(); ++h) {
            INFO("layer " << l << " head " << h);
            const auto& ours = extended->trace->blocks[l].attention.heads[h];
            const auto& theirs = full.trace->blocks[l].attention.heads[h];
            CHECK(relative_gap(ours.at("weights"), theirs.at("weights")) < 1e-5);
            CHECK(relative_gap(ours.at("keys"), theirs.at("keys")) < 1e-5);
            CHECK(relative_gap(ours.at("values"), theirs.at("values")) < 1e-5);
            CHECK(std::abs(extended->head_scores[l][h].previous_token - full.head_scores[l][h].previous_token) < 1e-5);
        }
    REQUIRE(extended->next_tokens.size() == full.next_tokens.size());
    for (size_t i = 0; i < full.next_tokens.size(); ++i) {
        CHECK(extended->next_tokens[i].id == full.next_tokens[i].id);
        CHECK(std::abs(extended->next_tokens[i].prob - full.next_tokens[i].prob) < 1e-5);
    }
    // The cache's size as the model view words it: GPT-2 has a key/value head per head.
    CHECK(extended->cache->ids() == full.tokens.ids);
    CHECK(attn::run_cache_size(*extended).bytes() == 2 * 4 * 8 * 7 * 2 * 4);
    CHECK(attn::run_cache_line(*extended) ==
          "KV cache: 2 layers × 4 heads × 8 dims × 7 tokens × keys and values = 3.6 kB (float32)");
    // And again from the extended run, as the app's generation does token after token.
    const std::optional<attn::ModelRun> again = attn::extend_model_run(*extended, attn::gpt2_tokenizer().encode("a!b!c!d!"));
    REQUIRE(again);
    const attn::ModelRun longer = run_text(model, "a!b!c!d!");
    CHECK(relative_gap(again->trace->blocks[1].attention.heads[3].at("weights"),
                       longer.trace->blocks[1].attention.heads[3].at("weights")) < 1e-5);
}

// Every head's weights, keys and values and the next tokens of `edited` against a fresh
// full run of the same tokens.
void check_same_as_full_run(const attn::ModelRun& edited, const attn::ModelRun& full) {
    CHECK(edited.tokens.ids == full.tokens.ids);
    REQUIRE(edited.trace->blocks.size() == full.trace->blocks.size());
    for (size_t l = 0; l < full.trace->blocks.size(); ++l)
        for (size_t h = 0; h < full.trace->blocks[l].attention.heads.size(); ++h) {
            INFO("layer " << l << " head " << h);
            const auto& ours = edited.trace->blocks[l].attention.heads[h];
            const auto& theirs = full.trace->blocks[l].attention.heads[h];
            CHECK(relative_gap(ours.at("weights"), theirs.at("weights")) < 1e-5);
            CHECK(relative_gap(ours.at("keys"), theirs.at("keys")) < 1e-5);
            CHECK(relative_gap(ours.at("values"), theirs.at("values")) < 1e-5);
        }
    REQUIRE(edited.next_tokens.size() == full.next_tokens.size());
    for (size_t i = 0; i < full.next_tokens.size(); ++i) {
        CHECK(edited.next_tokens[i].id == full.next_tokens[i].id);
        CHECK(std::abs(edited.next_tokens[i].prob - full.next_tokens[i].prob) < 1e-5);
    }
    CHECK(edited.cache->ids() == full.tokens.ids);
}

TEST_CASE("an edit reuses the rows before it: the full run's weights, keys, values and next tokens", "[model_run]") {
    const attn::LoadedModel model = small_model();
    const attn::Gpt2Tokenizer& gpt2 = attn::gpt2_tokenizer();
    const std::string text = "a!b!c!d!e!f";  // 11 single-character tokens (the context is 16)
    const attn::ModelRun run = run_text(model, text);
    // The last token changed, one in the middle, more tokens after a changed one, fewer,
    // fewer after a changed one.
    for (const std::string& edited : {std::string("a!b!c!d!e!g"), std::string("a!b!a!d!e!f"),
                                      std::string("a!b!c!d!e!g!h"), std::string("a!b!c!d!e"),
                                      std::string("a!b!c!d!x")}) {
        INFO(edited);
        const std::optional<attn::ModelRun> ours = attn::extend_model_run(run, gpt2.encode(edited));
        REQUIRE(ours);
        CHECK(ours->extended);
        check_same_as_full_run(*ours, run_text(model, edited));
        // And on from the edited run, as typing goes on.
        const std::optional<attn::ModelRun> more = attn::extend_model_run(*ours, gpt2.encode(edited + "!b"));
        REQUIRE(more);
        check_same_as_full_run(*more, run_text(model, edited + "!b"));
    }
    // An edit at the start leaves nothing to reuse; one too far back costs more steps
    // than a full run.
    CHECK_FALSE(attn::extend_model_run(run, gpt2.encode("b!b!c!d!e!f")));
    CHECK(attn::most_cached_steps(11) == 8);
    CHECK_FALSE(attn::extend_model_run(run, gpt2.encode("a?b!c!d!e!f")));  // 10 steps
    CHECK(attn::most_cached_steps(1024) == 32);
    // A text cut short from an extended run: its last row's logits are gone with it.
    const std::optional<attn::ModelRun> typed = attn::extend_model_run(run, gpt2.encode(text + "!"));
    REQUIRE(typed);
    CHECK_FALSE(attn::extend_model_run(*typed, gpt2.encode("a!b!c")));
}

TEST_CASE("a text that does not extend the run, or outgrows the context, takes a full run", "[model_run]") {
    const attn::LoadedModel model = small_model();
    const attn::ModelRun run = run_text(model, "a!b");
    const attn::Gpt2Tokenizer& gpt2 = attn::gpt2_tokenizer();
    CHECK_FALSE(attn::extend_model_run(run, gpt2.encode("b!c!d")));  // no first token in common
    CHECK_FALSE(attn::extend_model_run(run, gpt2.encode("a!b")));    // nothing new
    CHECK_FALSE(attn::extend_model_run(run, gpt2.encode("a!b!a!a!a!a!a!a!a")));  // 17 > 16 tokens
    CHECK_FALSE(attn::extend_model_run(run, gpt2.encode("a!b Hello")));  // an id past the vocabulary
}

TEST_CASE("the layer view is the chosen layer's attention, its head with every stage", "[model_run]") {
    const attn::LoadedModel model = small_model();
    auto run = std::make_shared<const attn::ModelRun>(run_text(model, "a!b!c", 1, 2));
    const attn::Run view = attn::layer_view(run);
    CHECK(view.model == run);
    CHECK(view.tokens.ids == run->tokens.ids);
    CHECK(view.trace.heads.size() == 4);
    CHECK(view.trace.kept.keeps(2, "scores"));
    CHECK_FALSE(view.trace.kept.keeps(1, "scores"));
    CHECK(view.trace.heads[2].at("queries") == run->trace->blocks[1].attention.heads[2].at("queries"));
    CHECK(view.trace.model.at("inputs") == run->trace->blocks[1].normed1);  // what the heads read
}

namespace {

attn::ModelRun run_at(const attn::LoadedModel& model, const std::string& text, std::optional<int> next_at,
                      int generate = 0) {
    attn::Settings s;
    s.model = model.name;
    s.text = text;
    s.next_at = next_at;
    s.generate = generate;
    return attn::run_model(s, model, attn::default_budget());
}

void check_same_next_tokens(const std::vector<attn::TokenProbability>& a, const std::vector<attn::TokenProbability>& b,
                            double tolerance) {
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        INFO("rank " << i);
        CHECK(a[i].id == b[i].id);
        CHECK(std::abs(a[i].prob - b[i].prob) <= tolerance);
    }
}

}  // namespace

TEST_CASE("next tokens at a picked position (--next-at P): logits row P, those after the text cut after P", "[model_run]") {
    const attn::LoadedModel model = small_model();
    const std::string text = "a!b!c!d";  // one token a character
    const attn::ModelRun last = run_at(model, text, std::nullopt);
    REQUIRE(last.tokens.ids.size() == text.size());
    CHECK(last.next_position == static_cast<int64_t>(text.size()) - 1);
    for (int p = 0; p < static_cast<int>(text.size()); ++p) {
        INFO("position " << p);
        const attn::ModelRun run = run_at(model, text, p);
        CHECK(run.next_position == p);
        // Only the shown positions' logits are computed: P's and the last one's.
        CHECK(run.trace->logits.rows() == (p + 1 == static_cast<int>(text.size()) ? 1 : 2));
        CHECK(run.trace->logit_rows.front() == p);
        CHECK(last.trace->logit_rows == std::vector<Eigen::Index>{static_cast<Eigen::Index>(text.size()) - 1});
        // The row the forward computed, and softmax/top-k of it as for the last position;
        // the last run's trace gives the same row from its final LayerNorm (another
        // product's shape: equal to float rounding).
        check_same_next_tokens(run.next_tokens, attn::top_next_tokens(run.trace->logits.row(0), 10), 0.0);
        check_same_next_tokens(run.next_tokens, attn::top_next_tokens(model.model->logits_at(*last.trace, p), 10),
                               1e-6);
        // Causal: what follows position P depends on tokens 0..P only. The run of the
        // text cut there is an independent forward of fewer tokens.
        const attn::ModelRun cut = run_at(model, text.substr(0, static_cast<size_t>(p) + 1), std::nullopt);
        REQUIRE(cut.tokens.ids.size() == static_cast<size_t>(p) + 1);
        check_same_next_tokens(run.next_tokens, cut.next_tokens, 1e-5);
    }
}

TEST_CASE("next tokens at a position past the tokens are refused in one line, generation still follows the last token", "[model_run]") {
    const attn::LoadedModel model = small_model();
    CHECK_THROWS_AS(run_at(model, "a!b", 3), attn::InputError);
    CHECK_THROWS_WITH(run_at(model, "a!b", 3), "--next-at 3: the text has 3 GPT-2 tokens (positions 0..2)");
    CHECK_THROWS_WITH(run_at(model, "a!b", 4, 2), "--next-at 4: the text has 3 GPT-2 tokens (positions 0..2)");
    const attn::ModelRun pinned = run_at(model, "a!b", 0, 4), unpinned = run_at(model, "a!b", std::nullopt, 4);
    CHECK(pinned.generated == unpinned.generated);
    CHECK(pinned.next_position == 0);
    // The app's run, with the generated tokens in view: a position among them is one.
    attn::Settings s;
    s.model = model.name;
    s.text = "a!b";
    s.generate = 2;
    s.next_at = 4;
    const attn::ModelRun in_view = attn::run_model(s, model, attn::default_budget(), true);
    CHECK(in_view.next_position == 4);
    check_same_next_tokens(in_view.next_tokens, attn::top_next_tokens(model.model->logits_at(*in_view.trace, 4), 10),
                           0.0);
    s.next_at = 5;
    CHECK_THROWS_WITH(attn::run_model(s, model, attn::default_budget(), true),
                      "--next-at 5: the text has 5 tokens with its generated ones (positions 0..4)");
}

TEST_CASE("appending tokens keeps a picked position's next tokens, unpicked, they follow the last", "[model_run]") {
    const attn::LoadedModel model = small_model();
    const attn::Gpt2Tokenizer& gpt2 = attn::gpt2_tokenizer();
    const attn::ModelRun full_at_2 = run_at(model, "a!b!c!d", 2);
    // Picked before the new tokens: the previous run's, its next tokens when it showed that
    // position, else its logits' row.
    for (const int before : {2, 0}) {
        INFO("the shorter run's position " << before);
        const attn::ModelRun shorter = run_at(model, "a!b", before);
        const std::optional<attn::ModelRun> extended = attn::extend_model_run(shorter, gpt2.encode("a!b!c!d"), 2);
        REQUIRE(extended);
        CHECK(extended->next_position == 2);
        check_same_next_tokens(extended->next_tokens, full_at_2.next_tokens, 1e-5);
        // And on from the extended run, as Generate does a token a run.
        const std::optional<attn::ModelRun> again = attn::extend_generated(*extended, 2);
        REQUIRE(again);
        CHECK(again->next_position == 2);
        check_same_next_tokens(again->next_tokens, full_at_2.next_tokens, 1e-5);
        const std::optional<attn::ModelRun> unpicked = attn::extend_generated(*extended);
        REQUIRE(unpicked);
        CHECK(unpicked->next_position == 7);
        check_same_next_tokens(unpicked->next_tokens, attn::top_next_tokens(unpicked->trace->logits.row(0), 10), 0.0);
    }
    // Picked among the new tokens: from that token's cached step.
    const std::optional<attn::ModelRun> at_new = attn::extend_model_run(run_at(model, "a!b", std::nullopt),
                                                                        gpt2.encode("a!b!c!d"), 5);
    REQUIRE(at_new);
    check_same_next_tokens(at_new->next_tokens, run_at(model, "a!b!c!d", 5).next_tokens, 1e-5);
    // An extended run keeps its last row of logits only: another earlier position needs a full run.
    CHECK_FALSE(attn::extend_model_run(*at_new, gpt2.encode("a!b!c!d!"), 1));
    CHECK_FALSE(attn::extend_model_run(*at_new, gpt2.encode("a!b!c!d!"), 8));  // past the tokens
    const std::optional<attn::ModelRun> kept = attn::extend_model_run(*at_new, gpt2.encode("a!b!c!d!"), 5);
    REQUIRE(kept);
    check_same_next_tokens(kept->next_tokens, at_new->next_tokens, 0.0);
}

TEST_CASE("another position of a full run shares its trace, with that row's next tokens", "[model_run]") {
    const attn::LoadedModel model = small_model();
    const attn::ModelRun run = run_at(model, "a!b!c", std::nullopt);
    const std::optional<attn::ModelRun> at_1 = attn::with_next_at(run, 1);
    REQUIRE(at_1);
    CHECK(at_1->next_position == 1);
    CHECK(at_1->trace == run.trace);  // the same weights and logits, not a copy of them
    // Row 1's logits from the trace's final LayerNorm, as a run at position 1 computes
    // them in its forward (to float rounding: a product of another shape).
    check_same_next_tokens(at_1->next_tokens, run_at(model, "a!b!c", 1).next_tokens, 1e-6);
    const std::optional<attn::ModelRun> back = attn::with_next_at(*at_1, std::nullopt);
    REQUIRE(back);
    CHECK(back->next_position == 4);
    check_same_next_tokens(back->next_tokens, run.next_tokens, 0.0);
    CHECK_FALSE(attn::with_next_at(run, 5));
    const std::optional<attn::ModelRun> extended = attn::extend_model_run(run, attn::gpt2_tokenizer().encode("a!b!c!"));
    REQUIRE(extended);
    CHECK_FALSE(attn::with_next_at(*extended, 1));
}

TEST_CASE("a model run a step at a time: a layer a step, each named, then the run_model gives", "[model_run]") {
    const attn::LoadedModel model = small_model();
    attn::Settings s;
    s.model = model.name;
    s.text = "a!b!c";
    s.layer = 1;
    s.head = 2;
    attn::ModelRunSteps steps(s, model, attn::default_budget(), true);
    const int layers = attn::model_shape(model).layers;
    REQUIRE(steps.steps() == layers + 2);  // the blocks, the logits (5 tokens: one part), the next tokens
    std::vector<std::string> named;
    while (!steps.done()) {
        CHECK(steps.steps_done() == static_cast<int>(named.size()));
        named.push_back(steps.next_step());
        steps.step();
    }
    CHECK(named.front() == "layer 1 of " + std::to_string(layers));
    CHECK(named[static_cast<size_t>(layers) - 1] == "layer " + std::to_string(layers) + " of " + std::to_string(layers));
    CHECK(named[static_cast<size_t>(layers)] == "the logits");
    CHECK(named.back() == "the next tokens");
    const attn::ModelRun stepped = steps.take();
    const attn::ModelRun whole = run_text(model, "a!b!c", 1, 2);
    CHECK((stepped.trace->logits.array() == whole.trace->logits.array()).all());
    CHECK(stepped.trace->blocks[1].attention.heads[2].at("scores") == whole.trace->blocks[1].attention.heads[2].at("scores"));
    REQUIRE(stepped.next_tokens.size() == whole.next_tokens.size());
    CHECK(stepped.next_tokens[0].id == whole.next_tokens[0].id);
    CHECK(stepped.head_scores.size() == static_cast<size_t>(layers));
    // Settings the model cannot run are refused before any step.
    s.layer = layers;
    CHECK_THROWS_WITH(attn::ModelRunSteps(s, model, attn::default_budget(), true), Catch::Contains("--layer"));
}
