// Placeholders in a lesson's text: what `{…}` renders against a step's own run, for the
// chapter 3 stages ({head1.weights[0][0]}, {sum:…}, {dot:…}, long rows) and today's
// variants (the KV cache, key/value groups, the window), and the LessonError a view
// without them gives.  The shipped lessons themselves are tested in test_lessons.cpp.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "classroom/lesson.h"
#include "lesson_probe.h"
#include "run/run_session.h"
#include "output/worked_arithmetic.h"

namespace {

using Probe = LessonProbe;

const std::vector<std::string> kSentence = {"--text", "Your journey starts with one step", "--embedding", "book"};

std::vector<std::string> with(std::vector<std::string> flags) {
    flags.insert(flags.begin(), kSentence.begin(), kSentence.end());
    return flags;
}

}  // namespace

TEST_CASE("placeholders: heads, columns, reducers, literal braces", "[lessons]") {
    attn::LessonStep step;
    step.stage = "weights";
    step.flags = {"--variant", "mha-wrapper", "--heads", "2", "--embedding", "book"};
    const attn::Run run = attn::compute_view(attn::step_settings(step));
    const auto render = [&](const std::string& text) {
        step.text = text;
        attn::validate_step(step, run);
        return attn::render_step_text(step, run);
    };
    CHECK(render("{{x}} {num_heads} {batch} {d_k}") == "{x} 2 1 2");
    CHECK(render("{mask[*][5]}") == "[1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 0.0000]");
    CHECK(render("{zeros:mask} of {size:mask}") == "21 of 36");
    CHECK(render("{sum:weights[3]}") == "1.0000");
    CHECK(render("{head1.weights[0][0]}") == "1.0000");
    CHECK(render("{rows:concat}x{cols:concat}") == "6x4");
}

TEST_CASE("{dot} writes a product as the cell details do: worked_arithmetic's terms", "[lessons]") {
    attn::LessonStep step;
    step.stage = "context";
    step.flags = {"--text", "Your journey starts with one step", "--embedding", "book", "--variant", "self-v2",
                  "--seed", "789", "--d-out", "2"};
    const attn::Run run = attn::compute_view(attn::step_settings(step));
    const attn::Matrix& q = run.trace.heads.at(0).at("queries");
    const attn::Matrix& k = run.trace.heads.at(0).at("keys");
    const attn::Matrix& w = run.trace.heads.at(0).at("weights");
    const attn::Matrix& v = run.trace.heads.at(0).at("values");
    const auto row = [](const attn::Matrix& m, int r) {
        std::vector<float> out;
        for (Eigen::Index c = 0; c < m.cols(); ++c) out.push_back(m(r, c));
        return out;
    };
    const auto col = [](const attn::Matrix& m, int c) {
        std::vector<float> out;
        for (Eigen::Index r = 0; r < m.rows(); ++r) out.push_back(m(r, c));
        return out;
    };
    step.text = "{dot:queries[1]|keys[2]}";
    const std::string qk = attn::render_step_text(step, run);
    CHECK(qk == attn::format_dot_terms(row(q, 1), row(k, 2)));
    step.text = "{dot:weights[1]|values[*][0]}";  // 6 tokens: 4 terms, then how many
    const std::string wv = attn::render_step_text(step, run);
    CHECK(wv == attn::format_dot_terms(row(w, 1), col(v, 0)));
    CHECK(wv.find(" + … (6 terms)") != std::string::npos);
    INFO(qk << " / " << wv);
    // self-v2 with this seed has negative queries, keys and values: shown as (−x).
    CHECK((qk + wv).find("·(−") != std::string::npos);
    CHECK((qk + wv).find('-') == std::string::npos);  // no hyphen for a minus
}

TEST_CASE("a long row is shortened when listed", "[lessons]") {
    attn::LessonStep step;
    step.stage = "weights";
    step.flags = {"--variant", "self-v1", "--text", "a b c d e f g h i j"};
    step.text = "{weights[0]}";
    const std::string text = attn::render_step_text(step, attn::compute_view(attn::step_settings(step)));
    CHECK(text.find("… (10 values)]") != std::string::npos);
}

TEST_CASE("placeholders of today's variants: the KV cache, key/value groups, the window", "[lessons]") {
    SECTION("gqa: bytes per token from the groups, every head's group counted from 1") {
        Probe gqa(with({"--variant", "gqa", "--heads", "4", "--kv-groups", "2", "--d-out", "8"}), 3);
        const attn::KvCacheSize& cache = gqa.run.trace.kv_cache.value();
        CHECK(gqa("{kv_cache_bytes}") == std::to_string(cache.bytes_per_token));
        CHECK(gqa("{kv_cache_bytes} {mha_cache_bytes} {kv_cache_tokens} {kv_cache_total}") == "32 64 6 192");
        CHECK(gqa("{kv_group} {kv_groups}") == "2 2");  // head 4: trace group 1
        CHECK(gqa("{head0.kv_group} {head1.kv_group} {head2.kv_group}") == "1 1 2");
        CHECK(gqa("{head1.d_k} {head1.sqrt_d_k}") == "2 1.4142");

        Probe mqa(with({"--variant", "gqa", "--heads", "4", "--kv-groups", "1", "--d-out", "8"}), 3);
        CHECK(mqa("{kv_group} of {kv_groups}: {kv_cache_bytes} of {mha_cache_bytes}") == "1 of 1: 16 of 64");
        Probe per_head(with({"--variant", "gqa", "--heads", "4", "--kv-groups", "4", "--d-out", "8"}), 3);
        CHECK(per_head("{kv_group} of {kv_groups}: {kv_cache_bytes} of {mha_cache_bytes}") == "4 of 4: 64 of 64");
    }
    SECTION("swa: the cache holds the last W tokens, or all of a shorter text") {
        Probe swa(with({"--variant", "swa", "--window", "3", "--heads", "2", "--d-out", "4"}));
        CHECK(swa("{window}: {kv_cache_tokens} of {num_tokens}, {kv_cache_bytes} × {kv_cache_tokens} = {kv_cache_total}") ==
              "3: 3 of 6, 32 × 3 = 96");
        CHECK(swa("{zeros:mask[5]}") == "3");
        Probe wide(with({"--variant", "swa", "--window", "10", "--heads", "2", "--d-out", "4"}));
        CHECK(wide("{window}: {kv_cache_tokens} tokens, {kv_cache_total} bytes") == "10: 6 tokens, 192 bytes");
    }
    SECTION("mla: the latent alone, which can cost more than MHA when wide") {
        Probe mla(with({"--variant", "mla", "--heads", "2", "--d-out", "8", "--latent-dim", "2"}));
        CHECK(mla("{kv_cache_bytes} {mha_cache_bytes} {kv_cache_total}") == "8 64 48");
        Probe wide(with({"--variant", "mla", "--heads", "2", "--d-out", "8", "--latent-dim", "20"}));
        CHECK(wide("{kv_cache_bytes} {mha_cache_bytes}") == "80 64");
    }
    SECTION("a view without them: a LessonError on load, a dash on screen") {
        Probe mha(with({"--variant", "mha", "--heads", "2", "--d-out", "4"}));
        CHECK_THAT(mha.error("{kv_cache_bytes}"), Catch::Contains("the mha view has no KV cache size"));
        CHECK_THAT(mha.error("{mha_cache_bytes}"), Catch::Contains("no KV cache size"));
        CHECK_THAT(mha.error("{kv_group}"), Catch::Contains("the mha view has no key/value groups"));
        CHECK_THAT(mha.error("{window}"), Catch::Contains("the mha view has no sliding window"));
        Probe swa(with({"--variant", "swa", "--window", "3", "--heads", "2", "--d-out", "4"}));
        CHECK_THAT(swa.error("{kv_groups}"), Catch::Contains("the swa view has no key/value groups"));
        Probe gqa(with({"--variant", "gqa", "--heads", "4", "--kv-groups", "2", "--d-out", "8"}));
        CHECK_THAT(gqa.error("{window}"), Catch::Contains("the gqa view has no sliding window"));
        CHECK_THAT(gqa.error("{head4.kv_group}"), Catch::Contains("head 5 does not exist: the view has 4 head(s)"));
        CHECK_THAT(gqa.error("{head*.kv_group}"), Catch::Contains("head* is not a head"));
        CHECK_THAT(gqa.error("{head1.num_tokens}"), Catch::Contains("unknown placeholder"));  // not a head's value
    }
}
