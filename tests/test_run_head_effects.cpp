// The app's heatmap of which heads matter (Settings::head_effects in a model run, a layer
// a step) against the CLI's --head-effects (run_interventions, held against PyTorch's
// hooked loop in test_interventions.cpp): switched off, and patched from another text.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "run/intervention_run.h"
#include "run/model_run.h"
#include "tolerance.h"

namespace {

const std::string kQwen2 = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/llama/qwen2-bias-f16-shards";

}  // namespace

TEST_CASE("A model run's head effects (the app's, Settings::head_effects) are the CLI's, a layer a step",
          "[gpt][llama][interventions]") {
    for (const std::string& name : {std::string(attn::kShippedModel), kQwen2}) {
        for (const bool patched : {false, true}) {
            INFO(name << (patched ? ", patched" : ", switched off"));
            attn::Settings s;
            s.model = name;
            s.ids = "5,17,3,42,8,17,3";
            s.head_effects = "logit-diff:17,3";
            if (patched) s.patch_from = "5,19,3,42,8,19,3";
            const attn::LoadedModel loaded = attn::load_model(name, 0);
            attn::ModelRunSteps steps(s, loaded, attn::default_budget());
            const int layers = attn::model_shape(loaded).layers;
            bool saw_part = false;  // a step ends with some layers in, not all
            while (!steps.done()) {
                steps.step();
                if (!steps.done() && steps.next_step().rfind("the heads' effects, layer ", 0) == 0) saw_part = true;
            }
            CHECK(saw_part);  // every family's effects come a layer a step (model_run.h)
            const attn::ModelRun run = steps.take();
            attn::InterventionFlags flags;
            flags.head_effects = s.head_effects;
            if (patched) flags.patch_from_ids = s.patch_from;
            const attn::InterventionRun cli = attn::run_interventions(s, flags, loaded, attn::default_budget());
            REQUIRE(run.effect_metric.has_value());
            CHECK(run.effects_patched == patched);
            CHECK(run.effect_before == Approx(cli.metric_baseline).margin(1e-6));
            REQUIRE(run.head_effects.size() == static_cast<size_t>(layers));
            REQUIRE(cli.head_effects.size() == run.head_effects.size());
            for (size_t l = 0; l < run.head_effects.size(); ++l)
                for (size_t h = 0; h < run.head_effects[l].size(); ++h)
                    CHECK(run.head_effects[l][h] == cli.head_effects[l][h]);  // the same computation, bit for bit
        }
    }
}

TEST_CASE("Head effects refuse a metric the model cannot take and another text of another length", "[interventions]") {
    attn::Settings s;
    s.model = attn::kShippedModel;
    s.text = "The state of the Union";
    const attn::LoadedModel loaded = attn::load_model(s.model.value(), 0);
    s.head_effects = "prob:99999";
    CHECK_THROWS_WITH(attn::run_model(s, loaded, attn::default_budget()),
                      "--head-effects: token id 99999 is outside the model's vocabulary (0..50256)");
    s.head_effects = "entropy";
    CHECK_THROWS_WITH(attn::run_model(s, loaded, attn::default_budget()),
                      "--head-effects needs prob:ID or logit-diff:ID1,ID2, got 'entropy'");
    s.head_effects = "prob:262";
    s.patch_from = "Too short";
    CHECK_THROWS_WITH(attn::run_model(s, loaded, attn::default_budget()),
                      "the patch's text has 2 tokens and the text 5: a patch needs texts of as many tokens");
}

TEST_CASE("Head effects past the time budget are refused before anything runs, either family", "[interventions]") {
    for (const std::string& name : {std::string(attn::kShippedModel), kQwen2}) {
        INFO(name);
        attn::Settings s;
        s.model = name;
        s.ids = "5,17,3,42,8,17,3";
        const attn::LoadedModel loaded = attn::load_model(name, 0);
        // Room for the run, not for its reruns: one per head, half the model each on average.
        const attn::WorkEstimate run = loaded.model->run_work(7, 0, false);
        attn::Budget budget = attn::default_budget();
        budget.seconds = run.seconds + 0.5 * run.forward_seconds;
        CHECK_NOTHROW(attn::run_model(s, loaded, budget));
        s.head_effects = "prob:5";
        CHECK_THROWS_AS(attn::ModelRunSteps(s, loaded, budget), attn::InputError);
    }
}
