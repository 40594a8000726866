// Properties every trace must have, over many random configurations: attention weights
// are distributions, masked positions get exactly nothing, the -inf trick equals
// masking after the softmax and renormalising (001's point), a one-head wrapper is the
// causal module, and rerunning only the dropout half equals a fresh run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "run/pipeline.h"
#include "attention/stage_catalogue.h"
#include "settings/settings.h"
#include "state/level_of_detail.h"

using attn::Matrix;

namespace {

// Plain loops rather than Eigen's minCoeff/maxCoeff: with -march=native those trip a
// GCC 12 -Wmaybe-uninitialized false positive inside the AVX-512 headers.
float min_of(const Matrix& m) {
    float v = std::numeric_limits<float>::infinity();
    for (Eigen::Index i = 0; i < m.size(); ++i) v = std::min(v, m.data()[i]);
    return v;
}
float max_of(const Matrix& m) {
    float v = -std::numeric_limits<float>::infinity();
    for (Eigen::Index i = 0; i < m.size(); ++i) v = std::max(v, m.data()[i]);
    return v;
}
float max_abs_diff(const Matrix& a, const Matrix& b) {
    REQUIRE(a.rows() == b.rows());
    REQUIRE(a.cols() == b.cols());
    float v = 0.0f;
    for (Eigen::Index i = 0; i < a.size(); ++i) v = std::max(v, std::fabs(a.data()[i] - b.data()[i]));
    return v;
}

// A random but reproducible configuration of any variant, as CLI flags.
std::vector<std::string> random_args(std::mt19937& rng, const std::string& variant) {
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    static const std::vector<std::string> pool = {"the", "cat", "sat", "on", "a", "warm", "mat", "while",
                                                  "rain", "fell", "over", "quiet", "hills", "and", "old"};
    const auto text = [&](int n) {
        std::string t;
        for (int i = 0; i < n; ++i) t += (i ? " " : "") + pool[static_cast<size_t>(pick(0, 14))];
        return t;
    };
    const int heads = pick(1, 4);
    std::vector<std::string> args = {"--variant", variant, "--text", text(pick(1, 20)),
                                     "--seed", std::to_string(pick(0, 100000)),
                                     "--embed-seed", std::to_string(pick(0, 100000)),
                                     "--d-in", std::to_string(pick(1, 16)), "--vocab-size", "100",
                                     "--batch", std::to_string(pick(1, 2))};
    if (pick(0, 1)) args.push_back("--pos");
    if (variant == "mha") {
        args.insert(args.end(), {"--heads", std::to_string(heads), "--d-out", std::to_string(heads * pick(1, 3))});
    } else {
        args.insert(args.end(), {"--d-out", std::to_string(pick(1, 6))});
        if (variant == "self-v1" || variant == "cross" || variant == "mha-wrapper")
            args.insert(args.end(), {"--heads", std::to_string(heads)});
    }
    if (variant == "self-v1" || variant == "cross") args.insert(args.end(), {"--d-out-v", std::to_string(pick(1, 5))});
    if (variant == "self-v2" || variant == "causal" || variant == "mha-wrapper" || variant == "mha")
        if (pick(0, 1)) args.push_back("--qkv-bias");
    if (variant == "self-v1" || variant == "self-v2" || variant == "cross")
        if (pick(0, 1)) args.push_back("--causal");
    if (variant == "cross") {
        if (pick(0, 1)) args.insert(args.end(), {"--text2", text(pick(1, 20))});
        else args.insert(args.end(), {"--kv-len", std::to_string(pick(1, 12))});
    }
    if (attn::variant_has_dropout(*attn::variant_from_name(variant))) {
        static const char* rates[] = {"0", "0.1", "0.5", "1"};
        args.insert(args.end(), {"--dropout", rates[pick(0, 3)]});
        if (pick(0, 1)) args.insert(args.end(), {"--dropout-seed", std::to_string(pick(0, 1000))});
    }
    return args;
}

attn::Settings settings_of(const std::vector<std::string>& args) {
    const attn::ParsedArgs parsed = attn::parse_settings(args);
    REQUIRE(parsed.rest.empty());
    return parsed.settings;
}

std::string joined(const std::vector<std::string>& args) {
    std::string s;
    for (const std::string& a : args) s += (s.empty() ? "'" : " '") + a + "'";
    return s;
}

// Every random configuration used below: 25 of each variant.
std::vector<std::vector<std::string>> random_configs() {
    std::mt19937 rng(20240611);
    std::vector<std::vector<std::string>> all;
    for (int i = 0; i < 25; ++i)
        for (const std::string& v : attn::variant_names()) all.push_back(random_args(rng, v));
    return all;
}

// weights * tril, each row divided by its sum: 000 3.5.1 / 001 1.1.
Matrix mask_after_softmax(const Matrix& unmasked_weights, const Matrix& mask) {
    const Matrix kept = unmasked_weights.cwiseProduct(Matrix::Ones(mask.rows(), mask.cols()) - mask);
    return kept.array().colwise() / kept.rowwise().sum().array();
}

void check_same_trace(const attn::Trace& a, const attn::Trace& b) {
    REQUIRE(a.heads.size() == b.heads.size());
    for (size_t h = 0; h < a.heads.size(); ++h)
        for (const attn::Stage& s : b.heads[h].stages) {
            INFO("head " << h << " stage " << s.name);
            const attn::Stage* other = a.heads[h].find(s.name);
            REQUIRE(other != nullptr);
            CHECK(other->value == s.value);
        }
    REQUIRE(a.output.size() == b.output.size());
    for (size_t i = 0; i < a.output.size(); ++i) {
        INFO("output batch element " << i);
        CHECK(a.output[i] == b.output[i]);
    }
}

}  // namespace

TEST_CASE("rows of the attention weights sum to 1 in every variant", "[properties]") {
    for (const auto& args : random_configs()) {
        INFO("attnscope-cli " << joined(args));
        const attn::Run r = attn::compute(settings_of(args));
        for (size_t h = 0; h < r.trace.heads.size(); ++h) {
            INFO("head " << h);
            const Matrix& w = r.trace.heads[h].at("weights");
            CHECK(min_of(w) >= 0.0f);
            CHECK(max_of(w) <= 1.0f);
            const Matrix sums = w.rowwise().sum();
            CHECK(max_abs_diff(sums, Matrix::Ones(sums.rows(), 1)) <= 1e-5f);
        }
    }
}

TEST_CASE("masked positions have weight exactly 0, before and after dropout", "[properties]") {
    int masked_seen = 0;
    for (const auto& args : random_configs()) {
        INFO("attnscope-cli " << joined(args));
        const attn::Run r = attn::compute(settings_of(args));
        for (size_t h = 0; h < r.trace.heads.size(); ++h) {
            const attn::HeadTrace& head = r.trace.heads[h];
            const attn::Stage* mask = head.find("mask");
            if (!mask) continue;  // simplified: nothing is masked
            const Matrix& w = head.at("weights");
            const attn::Stage* dropped = head.find("dropped_weights");
            for (Eigen::Index i = 0; i < w.size(); ++i) {
                if (mask->value.data()[i] != 1.0f) continue;
                ++masked_seen;
                INFO("head " << h << " flat index " << i);
                CHECK(w.data()[i] == 0.0f);
                CHECK(std::isinf(head.at("masked_scores").data()[i]));
                if (dropped) CHECK(dropped->value.data()[i] == 0.0f);
            }
        }
    }
    CHECK(masked_seen > 100);  // the random configurations did mask something
}

TEST_CASE("masking after softmax and renormalising equals the -inf trick (001)", "[properties]") {
    // The module's own unmasked softmax: the same configuration without --causal.
    SECTION("self-v1, self-v2 and cross with and without --causal") {
        std::mt19937 rng(7);
        int compared = 0;
        for (int i = 0; i < 30; ++i)
            for (const std::string v : {"self-v1", "self-v2", "cross"}) {
                std::vector<std::string> args = random_args(rng, v);
                std::vector<std::string> plain;
                for (const std::string& a : args)
                    if (a != "--causal") plain.push_back(a);
                args = plain;
                args.push_back("--causal");
                INFO("attnscope-cli " << joined(args));
                const attn::Run masked = attn::compute(settings_of(args));
                const attn::Run unmasked = attn::compute(settings_of(plain));
                for (size_t h = 0; h < masked.trace.heads.size(); ++h) {
                    const attn::HeadTrace& m = masked.trace.heads[h];
                    const Matrix renorm = mask_after_softmax(unmasked.trace.heads[h].at("weights"), m.at("mask"));
                    CHECK(max_abs_diff(renorm, m.at("weights")) <= 1e-6f);
                    ++compared;
                }
            }
        CHECK(compared >= 90);
    }
    SECTION("causal, mha-wrapper and mha: softmax of the trace's unmasked scaled scores (+ ALiBi's bias)") {
        for (const auto& args : random_configs()) {
            const attn::Settings s = settings_of(args);
            if (!attn::variant_has_dropout(s.attention.variant)) continue;
            INFO("attnscope-cli " << joined(args));
            const attn::Run r = attn::compute(s);
            for (const attn::HeadTrace& h : r.trace.heads) {
                Matrix softmax_input = h.at("scaled_scores");
                if (h.find("position_bias")) softmax_input += h.at("position_bias");
                const Matrix renorm = mask_after_softmax(attn::softmax_rows(softmax_input), h.at("mask"));
                CHECK(max_abs_diff(renorm, h.at("weights")) <= 1e-6f);
            }
        }
    }
}

TEST_CASE("mha-wrapper with one head equals causal for the same seed, dropout included", "[properties]") {
    std::mt19937 rng(11);
    for (int i = 0; i < 40; ++i) {
        std::vector<std::string> args = random_args(rng, "causal");
        INFO("attnscope-cli " << joined(args));
        const attn::Run causal = attn::compute(settings_of(args));
        args[1] = "mha-wrapper";
        args.insert(args.end(), {"--heads", "1"});
        const attn::Run wrapper = attn::compute(settings_of(args));
        check_same_trace(wrapper.trace, causal.trace);
    }
    SECTION("with dropout 0.5 and no re-seed, the masks are the same draws") {
        const std::vector<std::string> base = {"--text", "a b c d e f g h", "--d-in", "5", "--vocab-size", "20",
                                               "--dropout", "0.5", "--batch", "2", "--seed", "99"};
        std::vector<std::string> c = base, w = base;
        c.insert(c.end(), {"--variant", "causal"});
        w.insert(w.end(), {"--variant", "mha-wrapper", "--heads", "1"});
        const attn::Run rc = attn::compute(settings_of(c));
        const attn::Run rw = attn::compute(settings_of(w));
        check_same_trace(rw.trace, rc.trace);
        // and dropout did something, so the comparison covers it
        CHECK(min_of(rc.trace.heads[0].at("dropout_mask")) == 0.0f);
    }
}

TEST_CASE("recompute_dropout after changing only dropout settings equals a fresh compute", "[properties]") {
    std::mt19937 rng(13);
    static const double rates[] = {0.0, 0.1, 0.5, 1.0};
    for (int i = 0; i < 30; ++i)
        for (const std::string v : {"causal", "mha-wrapper", "mha"}) {
            const std::vector<std::string> args = random_args(rng, v);
            INFO("attnscope-cli " << joined(args));
            attn::Settings s = settings_of(args);
            attn::Run run = attn::compute(s);
            const double new_rate = rates[std::uniform_int_distribution<int>(0, 3)(rng)];
            s.attention.dropout = new_rate;
            if (i % 3 == 1) s.attention.dropout_seed = 1000 + i;     // a new dropout seed too
            if (i % 3 == 2) s.attention.dropout_seed = std::nullopt;  // back to continuing
            if (i % 5 == 4) s.attention.training = false;           // --eval
            INFO("now dropout " << new_rate << (s.attention.dropout_seed ? " with a dropout seed" : "")
                                << (s.attention.training ? "" : " in eval mode"));
            attn::recompute_dropout(run, s);
            const attn::Run fresh = attn::compute(s);
            check_same_trace(run.trace, fresh.trace);
            const attn::Stage* concat = fresh.trace.model.find("concat");
            if (concat) CHECK(run.trace.model.at("concat") == concat->value);
        }
}

TEST_CASE("what a forward keeps changes no number: the output and every kept stage are the same", "[properties]") {
    std::mt19937 rng(77);
    int previews_compared = 0;
    for (std::vector<std::string> args : random_configs()) {
        // Some texts past 128 tokens, so that heads computed in blocks of rows are covered.
        const auto text = std::find(args.begin(), args.end(), "--text") + 1;
        if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
            std::string long_text = *text;
            while (long_text.size() < 900) long_text += " " + *text;
            *text = long_text;
        }
        INFO("attnscope-cli " << joined(args));
        const attn::Settings s = settings_of(args);
        const attn::Run all = attn::compute(s);
        const int heads = static_cast<int>(all.trace.heads.size());
        const int detail = std::uniform_int_distribution<int>(0, heads - 1)(rng);
        // And a random choice of a head's stages, one by one (--stages W_key once kept nothing).
        std::vector<std::string> some_names;
        for (const std::string& name : attn::stage_names_in(attn::StagePlace::Head))
            if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) some_names.push_back(name);
        INFO("random choice: " << joined(some_names));
        for (const attn::KeptStages& keep : {attn::KeptStages::only({"output"}), attn::KeptStages::overview_and(detail),
                                             attn::KeptStages::only({"scores", "context"}), attn::KeptStages::only(some_names)}) {
            const attn::Run some = attn::compute(s, attn::budget_for(s), keep);
            REQUIRE(some.trace.output.size() == all.trace.output.size());
            for (size_t b = 0; b < all.trace.output.size(); ++b) CHECK(some.trace.output[b] == all.trace.output[b]);
            for (int h = 0; h < heads; ++h)
                for (const attn::Stage& st : all.trace.heads[static_cast<size_t>(h)].stages) {
                    const attn::Stage* kept = some.trace.heads[static_cast<size_t>(h)].find(st.name);
                    INFO("head " << h << " stage " << st.name);
                    // Simplified attention has no stage but scores, weights and context to leave out.
                    CHECK((kept != nullptr) == (keep.keeps(h, st.name) || s.attention.variant == attn::Variant::Simplified));
                    if (kept) CHECK(kept->value == st.value);
                }
        }
        // The overview of a run too long for every head's weights: the heads off screen
        // keep block means, which must be what a heatmap of their full weights shows.
        const int side = std::uniform_int_distribution<int>(1, 40)(rng);
        const attn::Run previewed = attn::compute(s, attn::budget_for(s), attn::KeptStages::previews_and(detail, side));
        for (size_t b = 0; b < all.trace.output.size(); ++b) CHECK(previewed.trace.output[b] == all.trace.output[b]);
        for (int h = 0; h < heads; ++h) {
            const attn::HeadTrace& head = previewed.trace.heads[static_cast<size_t>(h)];
            const attn::Stage* full = all.trace.heads[static_cast<size_t>(h)].find("weights");
            INFO("head " << h << " of " << heads << ", previews at most " << side << " a side");
            if (head.find("weights") || !full) continue;  // the detail head, simplified attention
            const attn::Stage* mask = all.trace.heads[static_cast<size_t>(h)].find("mask");
            const app::TexelGrid drawn = app::texels_for(full->value, mask ? &mask->value : nullptr, side);
            const Matrix& preview = previewed.trace.weights_previews.at(static_cast<size_t>(h));
            REQUIRE(preview.rows() == drawn.rows);
            REQUIRE(preview.cols() == drawn.cols);
            CHECK(previewed.trace.preview_factor == drawn.factor);
            if (drawn.texels.empty()) CHECK(preview == full->value);
            else CHECK(std::vector<float>(preview.data(), preview.data() + preview.size()) == drawn.texels);
            ++previews_compared;
        }
    }
    CHECK(previews_compared > 20);
}

TEST_CASE("a fully masked row is reported by softmax_rows, not turned into NaN", "[properties]") {
    const float inf = std::numeric_limits<float>::infinity();
    Matrix scores(3, 3);
    scores << 0.5f, -inf, -inf,
              -inf, -inf, -inf,  // nothing left to attend to
              0.1f, 0.2f, -inf;
    CHECK_THROWS_AS(attn::softmax_rows(scores), attn::ConfigError);
    CHECK_THROWS_WITH(attn::softmax_rows(scores), Catch::Contains("row 1"));

    SECTION("a partly masked row is still a distribution with exact zeros") {
        scores.row(1) << -inf, 3.0f, -inf;
        const Matrix w = attn::softmax_rows(scores);
        CHECK(w.allFinite());
        CHECK(w(0, 0) == 1.0f);
        CHECK(w(1, 0) == 0.0f);
        CHECK(w(1, 1) == 1.0f);
        CHECK(w(2, 2) == 0.0f);
        CHECK(std::fabs(w.row(2).sum() - 1.0f) <= 1e-6f);
    }
}

TEST_CASE("a row holding NaN becomes NaN, as torch's softmax makes it, and is not taken for a masked row",
          "[properties]") {
    // torch.softmax of a row with a NaN anywhere is NaN everywhere (its max is NaN). A
    // maximum that skipped NaN once made an all-NaN row of logits look fully masked and
    // threw (fuzz/regressions/fuzz_model_file/overflowing-scores.safetensors). Long rows
    // too: the first 8 x k elements go through the vectorised pass, the rest one by one.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const int width : {3, 8, 19}) {
        INFO("width " << width);
        Matrix scores = Matrix::Constant(3, width, 0.25f);
        scores.row(0).setConstant(nan);         // every element
        scores(1, width - 1) = nan;             // one, in the tail past the last 8 lanes
        scores(2, 0) = nan;                     // one, in the first lanes
        Matrix w;
        REQUIRE_NOTHROW(w = attn::softmax_rows(scores));
        for (int r = 0; r < 3; ++r) CHECK(w.row(r).array().isNaN().all());
    }
}
