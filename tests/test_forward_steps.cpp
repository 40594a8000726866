// A chapter 3 run a step at a time (AttendSteps: the browser page's, a head between two
// frames) is attend()'s run bit for bit, for every variant's row, and refuses what
// attend() refuses.
#include <catch2/catch.hpp>

#include "run/pipeline.h"
#include "settings/settings.h"

namespace {

attn::Settings settings(const std::vector<std::string>& args) { return attn::parse_settings(args).settings; }

const std::vector<std::string> kText = {"--text", "the cat sat on a warm mat while rain fell over quiet hills",
                                        "--d-in", "8", "--vocab-size", "50"};

// The arguments that give `variant` several heads (where it has them) and dropout (where
// it drops), so that every stage a step makes is there to compare.
std::vector<std::string> args_for(const attn::VariantInfo& row) {
    std::vector<std::string> a = kText;
    a.insert(a.end(), {"--variant", row.name});
    if (row.heads) a.insert(a.end(), {"--heads", "3", "--d-out", "6"});
    if (row.dropout) a.insert(a.end(), {"--dropout", "0.3"});
    if (row.kv_groups) a.insert(a.end(), {"--heads", "4", "--d-out", "8", "--kv-groups", "2", "--rope"});
    if (row.window) a.insert(a.end(), {"--window", "4"});
    if (row.second_text) a.insert(a.end(), {"--text2", "a second and shorter text"});
    return a;
}

void check_same_stages(const attn::StageList& a, const attn::StageList& b) {
    REQUIRE(a.stages.size() == b.stages.size());
    for (size_t i = 0; i < a.stages.size(); ++i) {
        INFO("stage " << a.stages[i].name);
        CHECK(a.stages[i].name == b.stages[i].name);
        REQUIRE(a.stages[i].value.rows() == b.stages[i].value.rows());
        REQUIRE(a.stages[i].value.cols() == b.stages[i].value.cols());
        // Bit for bit: -inf where masked, so compare as arrays (== is false for NaN only).
        CHECK((a.stages[i].value.array() == b.stages[i].value.array()).all());
    }
}

void check_same_run(const attn::Run& a, const attn::Run& b) {
    CHECK(a.tokens.ids == b.tokens.ids);
    check_same_stages(a.trace.model, b.trace.model);
    REQUIRE(a.trace.heads.size() == b.trace.heads.size());
    for (size_t h = 0; h < a.trace.heads.size(); ++h) {
        INFO("head " << h);
        check_same_stages(a.trace.heads[h], b.trace.heads[h]);
    }
    REQUIRE(a.trace.output.size() == b.trace.output.size());
    for (size_t i = 0; i < a.trace.output.size(); ++i) CHECK(a.trace.output[i] == b.trace.output[i]);
    CHECK(a.trace.head_groups == b.trace.head_groups);
    CHECK(a.trace.window == b.trace.window);
    CHECK(a.trace.kv_cache.has_value() == b.trace.kv_cache.has_value());
    REQUIRE(a.trace.weights_previews.size() == b.trace.weights_previews.size());
    for (size_t h = 0; h < a.trace.weights_previews.size(); ++h)
        CHECK((a.trace.weights_previews[h].array() == b.trace.weights_previews[h].array()).all());
}

// Runs every step, one at a time; what each said it would do, in order.
std::vector<std::string> every_step(attn::AttendSteps& steps) {
    std::vector<std::string> said;
    for (int done = 0; !steps.done(); ++done) {
        REQUIRE(done < 100);
        CHECK(steps.steps_done() == done);
        said.push_back(steps.next_step());
        steps.step();
    }
    return said;
}

}  // namespace

TEST_CASE("every variant a step at a time: the projections, a head a step, the heads combined, attend()'s bits",
          "[steps]") {
    for (const attn::VariantInfo& row : attn::variants()) {
        const attn::Settings s = settings(args_for(row));
        INFO("variant " << row.name);
        const attn::Embedded e = attn::embed_texts(s);
        for (const attn::KeptStages& keep : {attn::KeptStages{}, attn::KeptStages::previews_and(1, 4)}) {
            INFO("previews " << keep.preview_side);
            const attn::Run whole = attn::attend(s, e, keep);
            attn::AttendSteps steps(s, e, attn::budget_for(s), keep);
            const int heads = static_cast<int>(whole.trace.heads.size());
            CHECK(steps.next_step() == "projections");
            const std::vector<std::string> said = every_step(steps);
            CHECK(steps.steps() == heads + 2);
            REQUIRE(said.size() == static_cast<size_t>(heads + 2));
            CHECK(said[1] == "head 1 of " + std::to_string(heads));
            CHECK(said.back() == "combining the heads");
            check_same_run(steps.take(), whole);
        }
    }
}

TEST_CASE("a run a step at a time goes on with the rest at once, and refuses what attend() refuses", "[steps]") {
    const attn::Settings s = settings({"--variant", "mha", "--heads", "4", "--d-out", "8", "--text",
                                       "the cat sat on a warm mat", "--d-in", "8", "--vocab-size", "50"});
    const attn::Embedded e = attn::embed_texts(s);
    attn::AttendSteps steps(s, e, attn::budget_for(s), {});
    steps.step();  // the projections
    steps.step();  // head 1
    steps.run_rest();
    CHECK(steps.done());
    check_same_run(steps.take(), attn::attend(s, e));
    CHECK_THROWS_AS(steps.step(), std::logic_error);  // past the end: a bug, not a user's

    // A budget too small for the heads: refused when the steps are made, nothing computed.
    attn::Budget tiny = attn::budget_for(s);
    tiny.bytes = 1000;
    CHECK_THROWS_WITH(attn::AttendSteps(s, e, tiny, {}), Catch::Contains("budget"));
}

TEST_CASE("a dropout change a step at a time: the dropout, a head a step, the heads combined, recompute_dropout()'s bits",
          "[steps]") {
    for (const attn::VariantInfo& row : attn::variants()) {
        const attn::Settings s = settings(args_for(row));
        INFO("variant " << row.name);
        const auto shared = std::make_shared<const attn::Run>(attn::compute(s));
        const attn::Run& base = *shared;
        attn::Settings changed = s;
        changed.attention.dropout = 0.6;
        changed.attention.dropout_seed = 7;
        attn::Run whole = base;
        attn::recompute_dropout(whole, changed);
        attn::AttendSteps steps(shared, changed);
        const int heads = static_cast<int>(base.trace.heads.size());
        const std::vector<std::string> said = every_step(steps);
        const attn::Run stepped = steps.take();
        check_same_run(stepped, whole);
        check_same_run(stepped, attn::compute(changed));  // and a fresh run's with the new dropout
        attn::AttendSteps rest(shared, changed);  // the heads at once, each copied on its thread
        rest.step();
        rest.run_rest();
        check_same_run(rest.take(), whole);
        if (!row.projections) continue;  // 3.3: nothing to rerun, two steps that do nothing
        REQUIRE(said.size() == static_cast<size_t>(heads + 2));
        CHECK(said.front() == "dropout");
        CHECK(said[1] == "head 1 of " + std::to_string(heads));
        CHECK(said.back() == "combining the heads");
        // Not the run it started from where the module drops: the steps did rerun it.
        if (row.dropout)
            CHECK_FALSE((stepped.trace.heads[0].at("context").array() == base.trace.heads[0].at("context").array()).all());
    }
}
