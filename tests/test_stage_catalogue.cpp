// The stage catalogue (core/attention/stage_catalogue.h) is the one list of stages: every stage
// any variant records, with any option, is in it with the axes and colour scale the
// trace recorded, and every row is complete. A stage added to the engine but not to the
// catalogue fails here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "run/comparisons.h"
#include "run/pipeline.h"
#include "settings/settings.h"
#include "attention/stage_catalogue.h"

namespace {

// Every combination of the options that change which stages a run records.
std::vector<std::vector<std::string>> every_option(const std::string& variant) {
    std::vector<std::vector<std::string>> out;
    for (const char* heads : {"1", "2"})
        for (const bool bias : {false, true})
            for (const bool pos : {false, true})
                for (const int dropout : {0, 1, 2})  // none, 0.5 training, 0.5 eval
                    for (const bool causal : {false, true})
                        for (const bool text2 : {false, true})
                            for (const bool rope : {false, true}) {
                                std::vector<std::string> a = {"--variant", variant, "--heads", heads, "--batch", "2"};
                                if (rope) a.insert(a.end(), {"--rope", "--d-out", "4"});
                                if (bias) a.push_back("--qkv-bias");
                                if (pos) a.push_back("--pos");
                                if (dropout) a.insert(a.end(), {"--dropout", "0.5"});
                                if (dropout == 2) a.push_back("--eval");
                                if (causal) a.push_back("--causal");
                                if (text2) a.insert(a.end(), {"--text2", "one step starts"});
                                out.push_back(a);
                            }
    return out;
}

// Checks `s` against its catalogue row: axes, scale, and whether it belongs in the model or a head.
void check_stage(const attn::Stage& s, attn::Axis key_axis, bool in_model, std::set<std::string>& seen) {
    INFO("stage " << s.name);
    const attn::StageInfo* info = attn::find_stage_info(s.name);
    REQUIRE(info != nullptr);  // a stage the catalogue does not know
    CHECK(attn::resolve_axis(info->rows, key_axis) == s.rows);
    CHECK(attn::resolve_axis(info->cols, key_axis) == s.cols);
    CHECK(info->scale == s.scale);
    if (in_model) CHECK((info->place == attn::StagePlace::Model || info->place == attn::StagePlace::AfterHeads));
    else CHECK(info->place == attn::StagePlace::Head);
    seen.insert(s.name);
}

size_t catalogue_index(const std::string& name) {
    const attn::StageInfo* info = attn::find_stage_info(name);
    return info ? static_cast<size_t>(info - attn::stage_catalogue().data()) : SIZE_MAX;
}

}  // namespace

TEST_CASE("stage catalogue: every row is complete and named once", "[stage_catalogue]") {
    std::set<std::string> names;
    for (const attn::StageInfo& s : attn::stage_catalogue()) {
        INFO("stage " << s.name);
        CHECK(names.insert(s.name).second);  // no duplicates
        CHECK(std::string(s.name).find_first_of(" ,") == std::string::npos);
        CHECK(std::string(s.label).size() > 0);
        CHECK(std::string(s.meaning).size() > 0);
        CHECK(attn::find_stage_info(s.name) == &s);
    }
    CHECK(attn::find_stage_info("nosuch") == nullptr);
    CHECK(attn::find_stage_info("") == nullptr);

    // The trace's names: every row but the comparisons', in catalogue order.
    std::vector<std::string> trace_names;
    for (const attn::StageInfo& s : attn::stage_catalogue())
        if (s.place != attn::StagePlace::Comparison) trace_names.push_back(s.name);
    CHECK(attn::stage_names() == trace_names);
    CHECK(attn::stage_names().back() == "output");
    CHECK(attn::stage_names_in(attn::StagePlace::AfterHeads) == std::vector<std::string>{"concat", "W_out", "b_out"});
    CHECK(attn::masking_stage_names() == attn::stage_names_in(attn::StagePlace::Comparison));
}

TEST_CASE("stage catalogue: a stage it does not know fails loudly", "[stage_catalogue]") {
    attn::StageList list;
    CHECK_THROWS_AS(list.add("nosuch", attn::Matrix::Zero(2, 2), attn::Axis::Tokens), std::logic_error);
    CHECK_THROWS_AS(attn::catalogued_stage("nosuch", attn::Matrix::Zero(2, 2)), std::logic_error);
    // A stage indexed by the keys' tokens needs to be told which tokens those are.
    CHECK_THROWS_AS(attn::catalogued_stage("weights", attn::Matrix::Zero(2, 2)), std::logic_error);
    CHECK(list.stages.empty());

    const attn::Stage& w = list.add("weights", attn::Matrix::Zero(2, 3), attn::Axis::KeyTokens);
    CHECK(w.rows == attn::Axis::Tokens);
    CHECK(w.cols == attn::Axis::KeyTokens);
    CHECK(w.scale == attn::Scale::Probability);
    list.set("weights", attn::Matrix::Ones(2, 2), attn::Axis::Tokens);
    REQUIRE(list.stages.size() == 1);
    CHECK(list.stages[0].cols == attn::Axis::Tokens);
    CHECK(list.add("W_query", attn::Matrix::Zero(3, 2)).rows == attn::Axis::Features);
}

TEST_CASE("stage catalogue: every stage of every variant, with every option, is in it as recorded",
          "[stage_catalogue]") {
    std::set<std::string> seen;
    for (const std::string& variant : attn::variant_names()) {
        int runs = 0;
        for (const std::vector<std::string>& args : every_option(variant)) {
            attn::Run run;
            try {
                run = attn::compute(attn::parse_settings(args).settings);
            } catch (const attn::UserError&) {
                continue;  // options this variant does not take
            }
            ++runs;
            INFO(Catch::Detail::stringify(args));
            const attn::Axis key_axis = variant == "cross" ? attn::Axis::KeyTokens : attn::Axis::Tokens;
            for (const attn::Stage& s : run.trace.model.stages) check_stage(s, key_axis, true, seen);
            for (const attn::HeadTrace& head : run.trace.heads) {
                size_t previous = 0;
                for (const attn::Stage& s : head.stages) {
                    check_stage(s, key_axis, false, seen);
                    CHECK(catalogue_index(s.name) >= previous);  // a head's stages in forward-pass order
                    previous = catalogue_index(s.name);
                }
            }
            if (!run.trace.output.empty()) seen.insert("output");
            if (run.trace.heads[0].find("mask")) {
                for (const attn::Stage& s : attn::compare_masking(run.trace.heads[0]).stages) {
                    INFO("stage " << s.name);
                    const attn::StageInfo* info = attn::find_stage_info(s.name);
                    REQUIRE(info != nullptr);
                    CHECK(info->place == attn::StagePlace::Comparison);
                    CHECK(attn::resolve_axis(info->rows, key_axis) == s.rows);
                    CHECK(attn::resolve_axis(info->cols, key_axis) == s.cols);
                    CHECK(info->scale == s.scale);
                    seen.insert(s.name);
                }
            }
        }
        INFO(variant);
        CHECK(runs > 0);
    }
    // And the catalogue holds nothing the engine never records.
    for (const attn::StageInfo& s : attn::stage_catalogue()) {
        INFO("stage " << s.name);
        CHECK(seen.count(s.name) == 1);
    }
}
