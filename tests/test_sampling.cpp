// Chapter 5's sampled generation against PyTorch 1.13: torch's exponential_ and
// multinomial draws value by value, then generate's ids for the same seed, temperature
// and top-k, exactly: tests/golden/sampling_golden.json (make_sampling_golden.py) and
// the shipped model's in checkpoint_golden.json (make_checkpoint_golden.py), never
// edited by hand. Both generations (full forwards, the KV cache), the CLI's run and the
// app's one token a run must give the same ids.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/gpt_forward.h"
#include "model/kv_cache.h"
#include "run/model_run.h"
#include "model/next_token.h"
#include "model/sampling.h"
#include "numerics/torch_random.h"
#include "text/gpt2_tokenizer.h"
#include "seeded_model.h"

using nlohmann::json;

namespace {

const std::string kGolden = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/";

json read_golden(const std::string& name) {
    std::ifstream in(kGolden + name);
    if (!in) throw std::runtime_error("cannot open tests/golden/" + name);
    return json::parse(in);
}

const json& golden() {
    static const json doc = read_golden("sampling_golden.json");
    return doc;
}

attn::Sampling sampling_of(const json& run) {
    attn::Sampling how;
    how.temperature = run.at("temperature");
    if (!run.at("top_k").is_null()) how.top_k = run.at("top_k").get<int64_t>();
    how.seed = run.at("seed");
    return how;
}

// The 10 most probable next tokens with the chance generate's first step draws each
// (make_sampling_golden.py's first_draw), within 1e-4 of the largest probability.
void check_first_draw(const std::vector<attn::TokenProbability>& got, const json& want) {
    REQUIRE(got.size() == want.size());
    const double scale = std::max(want[0].at("prob").get<double>(), 1e-30);
    double drawn_scale = 1e-30;
    for (const json& w : want) drawn_scale = std::max(drawn_scale, w.at("sampled_prob").get<double>());
    for (size_t i = 0; i < got.size(); ++i) {
        INFO("next token " << i << ": id " << got[i].id << ", expected " << want[i].at("id"));
        CHECK(got[i].id == want[i].at("id").get<int64_t>());
        CHECK(std::abs(got[i].prob - want[i].at("prob").get<double>()) <= 1e-4 * scale);
        CHECK(std::abs(got[i].drawn - want[i].at("sampled_prob").get<double>()) <= 1e-4 * drawn_scale);
    }
}

// Each run's ids by chapter 5's generate (a full forward a token) and with the KV cache;
// a sampled run's first draw, from the forward's last logits.
void check_runs(const attn::GptModel& model, const json& runs) {
    for (const json& r : runs) {
        const attn::Sampling how = sampling_of(r);
        INFO("seed " << how.seed << ", temperature " << how.temperature << ", top_k " << r.at("top_k").dump());
        const std::vector<int64_t> ids = r.at("ids");
        if (!r.at("text").is_null()) CHECK(attn::gpt2_tokenizer().encode_ids(r.at("text").get<std::string>()) == ids);
        std::vector<int64_t> expected = ids;
        for (const int64_t id : r.at("generated")) expected.push_back(id);
        const int n = r.at("new_tokens");
        attn::TokenSampler plain(how), cached(how);
        CHECK(attn::generate(model, ids, n, plain) == expected);
        CHECK(attn::generate_cached(model, ids, n, cached) == expected);
        CHECK(plain.sampled_tokens() == (how.sampled() ? n : 0));
        if (how.sampled()) {
            const attn::Matrix& logits = attn::gpt_forward(model, ids).logits;
            const attn::RowVector last = logits.row(logits.rows() - 1);
            std::vector<attn::TokenProbability> next = attn::top_next_tokens(last, 10);
            const attn::RowVector drawn = attn::draw_distribution(last, how);
            CHECK(std::abs(drawn.sum() - 1.0f) < 1e-5f);
            for (attn::TokenProbability& t : next) t.drawn = drawn(static_cast<Eigen::Index>(t.id));
            check_first_draw(next, r.at("next_token"));
        }
    }
}

attn::Settings settings_for(const std::string& model, const json& run, int generate) {
    attn::Settings s;
    s.model = model;
    s.text = run.at("text");
    s.generate = generate;
    s.sampling = sampling_of(run);
    return s;
}

}  // namespace

TEST_CASE("torch's exponential_ draws, value by value", "[sampling][rng]") {
    for (const json& e : golden().at("exponential")) {
        const std::vector<float> expected = e.at("values");  // float32 values, exact in JSON's doubles
        attn::TorchGenerator g(e.at("seed").get<uint64_t>());
        // In two fills, the first odd-sized: the stream goes on across calls and chunks.
        std::vector<float> got(expected.size());
        const size_t first = got.size() / 3 | 1;
        attn::torch_exponential(g, got.data(), first);
        attn::torch_exponential(g, got.data() + first, got.size() - first);
        for (size_t i = 0; i < got.size(); ++i) {
            INFO("seed " << e.at("seed") << " draw " << i);
            REQUIRE(got[i] == expected[i]);
        }
    }
}

TEST_CASE("torch.multinomial(w, 1) draws torch's ids and leaves the stream where torch does", "[sampling][rng]") {
    for (const json& m : golden().at("multinomial")) {
        INFO("seed " << m.at("seed") << ", " << m.at("vocab") << " weights");
        attn::TorchGenerator g(m.at("seed").get<uint64_t>());
        const attn::RowVector w = attn::torch_rand(g, 1, m.at("vocab"));
        for (const int64_t id : m.at("ids")) CHECK(attn::torch_multinomial(g, w) == id);
        CHECK(attn::torch_rand(g, 1, 1)(0, 0) == m.at("rand_after").get<float>());
    }
    attn::TorchGenerator g(1);
    const attn::RowVector zeros = attn::RowVector::Zero(4);
    CHECK_THROWS_WITH(attn::torch_multinomial(g, zeros), Catch::Contains("sum of probabilities <= 0"));
    attn::RowVector negative = attn::RowVector::Ones(4);
    negative(2) = -1.0f;
    CHECK_THROWS_WITH(attn::torch_multinomial(g, negative), Catch::Contains("element < 0"));
}

TEST_CASE("top-k keeps the k largest logits and their equals, temperature 0 draws nothing", "[sampling]") {
    const float inf = std::numeric_limits<float>::infinity();
    attn::RowVector l(5);
    l << 1, 3, 3, 2, 0;
    attn::RowVector two = l, three = l, all = l;
    attn::keep_top_k(two, 2);
    attn::keep_top_k(three, 3);
    attn::keep_top_k(all, 5);
    attn::RowVector expect_two(5), expect_three(5);
    expect_two << -inf, 3, 3, -inf, -inf;
    expect_three << -inf, 3, 3, 2, -inf;
    CHECK(two == expect_two);
    CHECK(three == expect_three);
    CHECK(all == l);
    CHECK_THROWS_WITH(attn::keep_top_k(all, 6), "--top-k 6: the model's vocabulary has 5 tokens");

    attn::Sampling greedy;
    greedy.top_k = 1;
    attn::TokenSampler argmax(greedy);
    CHECK(argmax.next(l) == 1);  // the first of equals, as torch.argmax
    CHECK(argmax.sampled_tokens() == 0);
    // With top_k = 1 a sampled token is the argmax too, but it draws.
    attn::Sampling one = greedy;
    one.temperature = 1.0;
    attn::TokenSampler sampler(one);
    CHECK(sampler.next(l) == 1);
    CHECK(sampler.sampled_tokens() == 1);
}

TEST_CASE("gpt-ch4 samples torch's ids, the book's top_k=25, temperature=1.4 call among them", "[sampling][gpt]") {
    const json& g = golden().at("gpt_ch4");
    const attn::LoadedModel& m = attn::test::seeded_gpt_ch4(g.at("weights_seed"));
    check_runs(*m.model->gpt_weights(), g.at("runs"));
    // The CLI's run: generation from the run's own cache.
    const json& book = g.at("runs")[0];
    const attn::ModelRun run = attn::run_model(settings_for("gpt-ch4", book, 15), m, attn::default_budget());
    CHECK(run.generated == book.at("generated").get<std::vector<int64_t>>());
}

TEST_CASE("sampling past the context: the window moves on", "[sampling][checkpoint]") {
    const json& g = golden().at("checkpoint");
    const attn::LoadedModel m = attn::load_model(kGolden + g.at("file").get<std::string>(), 0);
    check_runs(*m.model->gpt_weights(), g.at("runs"));
}

TEST_CASE("the shipped model samples torch's ids, a token a run continues the same stream", "[sampling][checkpoint]") {
    static const json checkpoints = read_golden("checkpoint_golden.json");
    const json& runs = checkpoints.at("shipped").at("sampled");
    const attn::LoadedModel m = attn::load_model(attn::kShippedModel, 0);
    check_runs(*m.model->gpt_weights(), runs);
    for (const json& r : runs) {
        INFO("seed " << r.at("seed") << ", temperature " << r.at("temperature"));
        const std::vector<int64_t> expected = r.at("generated");
        const int n = r.at("new_tokens");
        // The app: a run of the text, then one run a token from the last run's cache and
        // sampler; and a run with every token at once (what a session file opens with).
        const attn::ModelRun first = attn::run_model(settings_for(attn::kShippedModel, r, 0), m, attn::default_budget(), true);
        if (r.contains("next_token")) check_first_draw(first.next_tokens, r.at("next_token"));  // what the bars show
        for (const attn::TokenProbability& t : first.next_tokens) CHECK((t.drawn >= 0.0f) == first.sampler.how().sampled());
        std::optional<attn::ModelRun> more = attn::extend_generated(first);
        for (int i = 1; more && i < n; ++i) more = attn::extend_generated(*more);
        REQUIRE(more);
        CHECK(more->generated == expected);
        CHECK((more->next_tokens.front().drawn >= 0.0f) == more->sampler.how().sampled());  // a cached step's too
        CHECK(more->sampler.sampled_tokens() == (more->sampler.how().sampled() ? n : 0));
        const attn::ModelRun at_once = attn::run_model(settings_for(attn::kShippedModel, r, n), m, attn::default_budget(), true);
        CHECK(at_once.generated == expected);
        // And the next token after either is the same: the streams stand at the same place.
        CHECK(attn::extend_generated(*more)->generated.back() == attn::extend_generated(at_once)->generated.back());
    }
}

TEST_CASE("sampling settings a model cannot take are refused in one line", "[sampling][settings]") {
    CHECK_THROWS_WITH(attn::parse_settings({"--temperature", "-0.5"}), "--temperature must be in [0, 100], got -0.5");
    CHECK_THROWS_WITH(attn::parse_settings({"--temperature", "nan"}),
                      "--temperature needs a number such as 0.5, got 'nan'");
    CHECK_THROWS_WITH(attn::parse_settings({"--top-k", "0"}), "--top-k must be between 1 and 10000000, got 0");
    attn::Settings s = attn::parse_settings({"--temperature", "1.4", "--top-k", "25"}).settings;
    CHECK_THROWS_WITH(attn::check_applicable(s), "--temperature needs --model");
    const attn::LoadedModel small = attn::load_model(kGolden + "checkpoints/f32-config", 0);
    s.model = small.name;
    s.text = "a!b";
    s.sampling.top_k = 98;
    CHECK_THROWS_WITH(attn::run_model(s, small, attn::default_budget()), "--top-k 98: the model's vocabulary has 97 tokens");
}
