// Comparisons as core functions: the two ways of masking agree, side-by-side settings
// differ only in what they compare, and differences of runs line up stage by stage.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "run/comparisons.h"

namespace {

attn::Settings settings(const std::vector<std::string>& args) { return attn::parse_settings(args).settings; }

attn::Run run(const std::vector<std::string>& args) { return attn::compute(settings(args)); }

float max_abs(const attn::Matrix& m) { return m.cwiseAbs().maxCoeff(); }

}  // namespace

TEST_CASE("masking after softmax and renormalising equals -inf before softmax", "[comparisons]") {
    const std::vector<std::vector<std::string>> configs = {
        {"--variant", "causal"},
        {"--variant", "self-v2", "--seed", "789", "--causal"},
        {"--variant", "self-v1", "--causal", "--d-out", "5", "--heads", "3"},
        {"--variant", "mha", "--heads", "4", "--d-out", "8", "--d-in", "16", "--text", "a b c d e f g h i j k l"},
        {"--variant", "cross", "--causal", "--kv-len", "3"},  // fewer keys than queries
        {"--variant", "self-v2"},                             // nothing masked: all ways equal
    };
    for (const auto& args : configs) {
        const attn::Run r = run(args);
        for (const attn::HeadTrace& head : r.trace.heads) {
            INFO(Catch::Detail::stringify(args));
            const attn::StageList m = attn::compare_masking(head);
            REQUIRE(m.stages.size() == attn::masking_stage_names().size());
            for (size_t i = 0; i < m.stages.size(); ++i) CHECK(m.stages[i].name == attn::masking_stage_names()[i]);
            CHECK(max_abs(m.at("difference")) <= 1e-6f);
            CHECK(m.at("minus_inf_weights") == head.at("weights"));
            CHECK(max_abs(m.at("renormalised").rowwise().sum().array() - 1.0f) <= 1e-6f);
            // Where the mask is 1, the kept weights are exactly 0.
            CHECK(m.at("masked_after_softmax").cwiseProduct(head.at("mask")).cwiseAbs().maxCoeff() == 0.0f);
            CHECK(m.find("difference")->scale == attn::Scale::Signed);
            CHECK(m.find("renormalised")->scale == attn::Scale::Probability);
            CHECK(m.find("renormalised")->cols == head.find("weights")->cols);
        }
    }
}

TEST_CASE("the masking comparison needs a mask", "[comparisons]") {
    const attn::Run r = run({"--variant", "simplified"});
    CHECK_THROWS_AS(attn::compare_masking(r.trace.heads[0]), attn::ComparisonError);
}

TEST_CASE("comparison kinds by name", "[comparisons]") {
    for (const std::string& name : attn::comparison_names())
        CHECK(attn::comparison_name(*attn::comparison_from_name(name)) == name);
    CHECK_FALSE(attn::comparison_from_name("heads"));
}

TEST_CASE("wrapper vs weight splits: same heads, same head width, same output width", "[comparisons]") {
    const std::vector<std::vector<std::string>> currents = {
        {"--variant", "self-v1"},
        {"--variant", "mha-wrapper", "--heads", "3", "--d-out", "4"},
        {"--variant", "mha", "--heads", "4", "--d-out", "8"},
        {"--variant", "cross", "--text2", "one step", "--causal"},
    };
    for (const auto& args : currents) {
        INFO(Catch::Detail::stringify(args));
        const auto pair = attn::comparison_settings(settings(args), attn::ComparisonKind::MultiHead);
        REQUIRE(pair.size() == 2);
        CHECK(pair[0].first.rfind("mha-wrapper", 0) == 0);
        CHECK(pair[1].first.rfind("mha:", 0) == 0);
        const attn::Run wrapper = attn::compute(pair[0].second);
        const attn::Run split = attn::compute(pair[1].second);
        CHECK(wrapper.trace.variant == "mha-wrapper");
        CHECK(split.trace.variant == "mha");
        CHECK(wrapper.trace.heads.size() == split.trace.heads.size());
        CHECK(wrapper.trace.heads[0].at("context").cols() == split.trace.heads[0].at("context").cols());
        CHECK(wrapper.trace.output[0].cols() == split.trace.output[0].cols());
        CHECK(attn::difference(wrapper, split, "output").stages.size() == 1);
        CHECK(attn::difference(wrapper, split, "weights").stages.size() == wrapper.trace.heads.size());
    }
    const auto book = attn::comparison_settings(settings({"--variant", "mha-wrapper", "--heads", "2"}),
                                                attn::ComparisonKind::MultiHead);
    CHECK(book[0].first == "mha-wrapper: 2 heads of d_out 2");
    CHECK(book[1].first == "mha: d_out 4 split into 2 heads of 2");
}

TEST_CASE("dropout off vs on differ only after the weights", "[comparisons]") {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--variant", "causal"}, {"--variant", "mha", "--heads", "2", "--dropout", "0.2"}, {"--variant", "self-v1"}}) {
        INFO(Catch::Detail::stringify(args));
        const auto pair = attn::comparison_settings(settings(args), attn::ComparisonKind::Dropout);
        REQUIRE(pair.size() == 2);
        const attn::Run off = attn::compute(pair[0].second);
        const attn::Run on = attn::compute(pair[1].second);
        CHECK(pair[0].first == "dropout off (eval)");
        CHECK(pair[1].first.rfind("dropout 0.", 0) == 0);
        for (const std::string stage : {"queries", "keys", "values", "scores", "masked_scores", "weights"})
            for (const attn::Stage& d : attn::difference(on, off, stage).stages) CHECK(max_abs(d.value) == 0.0f);
        float after = 0.0f;
        for (const attn::Stage& d : attn::difference(on, off, "dropped_weights").stages) after = std::max(after, max_abs(d.value));
        CHECK(after > 0.0f);
        CHECK(max_abs(attn::difference(on, off, "output").stages[0].value) > 0.0f);
    }
}

TEST_CASE("two seeds: same shapes, other weights", "[comparisons]") {
    const auto pair = attn::comparison_settings(settings({"--variant", "self-v2", "--seed", "789"}),
                                                attn::ComparisonKind::Seeds);
    REQUIRE(pair.size() == 2);
    CHECK(pair[0].first == "seed 789");
    CHECK(pair[1].first == "seed 790");
    const attn::Run a = attn::compute(pair[0].second), b = attn::compute(pair[1].second);
    CHECK(max_abs(attn::difference(a, b, "inputs").stages[0].value) == 0.0f);
    CHECK(max_abs(attn::difference(a, b, "W_query").stages[0].value) > 0.0f);
    CHECK(attn::comparison_settings(settings({}), attn::ComparisonKind::Masking).size() == 1);
}

TEST_CASE("difference refuses stages of different shapes or missing stages", "[comparisons]") {
    const attn::Run six = run({"--variant", "causal"});
    const attn::Run two = run({"--variant", "causal", "--text", "one step"});
    CHECK_THROWS_WITH(attn::difference(six, two, "weights"), "weights has shape 6x6 in one run and 2x2 in the other");
    CHECK_THROWS_AS(attn::difference(six, run({"--variant", "simplified"}), "queries"), attn::ComparisonError);
    // -inf in both (masked scores) differs by 0, not NaN.
    const attn::StageList d = attn::difference(six, six, "masked_scores");
    CHECK(max_abs(d.stages[0].value) == 0.0f);
}

TEST_CASE("today's variants against the module they change", "[comparisons]") {
    using K = attn::ComparisonKind;
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--variant", "causal"}, {"--variant", "mha", "--heads", "2", "--d-out", "6"},
             {"--variant", "gqa", "--heads", "6", "--kv-groups", "3", "--d-out", "12"}, {"--variant", "swa", "--window", "2"},
             {"--variant", "self-v1", "--d-out-v", "3"}}) {
        INFO(Catch::Detail::stringify(args));
        for (const K kind : {K::KvGroups, K::MultiQuery, K::Window, K::Rope, K::Latent}) {
            INFO(attn::comparison_name(kind));
            const auto pair = attn::comparison_settings(settings(args), kind);
            REQUIRE(pair.size() == 2);
            attn::Run a, b;
            REQUIRE_NOTHROW(a = attn::compute(pair[0].second));
            REQUIRE_NOTHROW(b = attn::compute(pair[1].second));
            CHECK(a.trace.heads.size() == b.trace.heads.size());
            // Both sides keep the same shapes, so every difference map can be drawn.
            CHECK(max_abs(attn::difference(a, b, "inputs").stages[0].value) == 0.0f);
            CHECK(attn::difference(a, b, "weights").stages.size() == a.trace.heads.size());
            CHECK(attn::difference(a, b, "output").stages.size() == 1);
        }
    }
    const attn::Settings gqa = settings({"--variant", "gqa", "--heads", "6", "--kv-groups", "3", "--d-out", "12"});
    const auto groups = attn::comparison_settings(gqa, K::KvGroups);
    CHECK(groups[0].first == "MHA: 6 heads, 6 key/value groups");
    CHECK(groups[1].first == "GQA: 6 heads share 3 groups");
    CHECK(attn::comparison_settings(gqa, K::MultiQuery)[1].first == "MQA: 6 heads share 1 group");
    CHECK(attn::compute(groups[1].second).trace.head_groups == std::vector<int>{0, 0, 1, 1, 2, 2});

    // The window on the same weights: only rows that reach back past W differ.
    const auto window = attn::comparison_settings(settings({"--variant", "swa", "--window", "2"}), K::Window);
    const attn::Run causal = attn::compute(window[0].second), swa = attn::compute(window[1].second);
    CHECK(max_abs(attn::difference(causal, swa, "W_query").stages[0].value) == 0.0f);
    const attn::Matrix dw = attn::difference(causal, swa, "weights").stages[0].value;
    CHECK(dw.topRows(2).cwiseAbs().maxCoeff() == 0.0f);  // rows 0 and 1 see at most 2 keys either way
    CHECK(dw.bottomRows(4).cwiseAbs().maxCoeff() > 0.0f);

    // RoPE draws no weights: the same queries, other scores.
    const auto rope = attn::comparison_settings(settings({"--variant", "mha", "--heads", "2", "--d-out", "4"}), K::Rope);
    const attn::Run off = attn::compute(rope[0].second), on = attn::compute(rope[1].second);
    CHECK(max_abs(attn::difference(off, on, "queries").stages[0].value) == 0.0f);
    CHECK(max_abs(attn::difference(off, on, "scores").stages[0].value) > 0.0f);
}
