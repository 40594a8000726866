// Chapter 4's GPTModel, seeded and untrained, against PyTorch running the book's classes:
// tests/golden/gpt_golden.json, written by tests/golden/make_gpt_golden.py (never by hand).
// Each stage within 1e-4 of its own scale (the largest |value| torch gives for it): sums
// of 768 or 3072 products taken in another order differ by rounding relative to their
// largest terms, not to one small element.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/gpt_forward.h"
#include "model/kv_cache.h"
#include "model/next_token.h"
#include "seeded_model.h"
#include "stage_mismatch.h"

using nlohmann::json;

namespace {

const json& golden() {
    static const json doc = [] {
        std::ifstream in(std::string(ATTNSCOPE_TESTS_DIR) + "/golden/gpt_golden.json");
        if (!in) throw std::runtime_error("cannot open tests/golden/gpt_golden.json (run make_gpt_golden.py)");
        return json::parse(in);
    }();
    return doc;
}

attn::GptConfig config_of(const json& c) {
    attn::GptConfig cfg;
    cfg.vocab_size = c.at("vocab_size");
    cfg.context_length = c.at("context_length");
    cfg.emb_dim = c.at("emb_dim");
    cfg.n_heads = c.at("n_heads");
    cfg.n_layers = c.at("n_layers");
    cfg.drop_rate = c.at("drop_rate");
    cfg.qkv_bias = c.at("qkv_bias");
    return cfg;
}

}  // namespace

TEST_CASE("chapter 4's GPTModel: every block, every head's weights and the logits are torch's", "[gpt]") {
    for (const json& m : golden().at("models")) {
        INFO(m.at("name").get<std::string>());
        const attn::GptModel model = attn::build_gpt_ch4(config_of(m.at("config")), m.at("seed"));
        const std::vector<int64_t> ids = m.at("ids");
        const attn::ModelTrace t = attn::gpt_forward(model, ids, attn::KeptStages::only({"weights"}));
        REQUIRE(t.blocks.size() == m.at("layers").size());
        for (size_t l = 0; l < t.blocks.size(); ++l) {
            const json& layer = m.at("layers")[l];
            const std::string at = "layer " + std::to_string(l) + " ";
            CHECK(attn::test::mismatch(at + "residual1", t.blocks[l].residual1, layer.at("residual1")) == "");
            CHECK(attn::test::mismatch(at + "outputs", t.blocks[l].outputs, layer.at("outputs")) == "");
            const auto& heads = t.blocks[l].attention.heads;
            REQUIRE(heads.size() == layer.at("weights").size());
            for (size_t h = 0; h < heads.size(); ++h)
                CHECK(attn::test::mismatch(at + "head " + std::to_string(h) + " weights", heads[h].at("weights"),
                               layer.at("weights")[h]) == "");
        }
        CHECK(attn::test::mismatch("logits", t.logits, m.at("logits")) == "");
        const std::vector<int64_t> generated = m.at("generated");
        CHECK(attn::generate_greedy(model, ids, static_cast<int>(generated.size() - ids.size())) == generated);
    }
}

TEST_CASE("chapter 4's seeded GPT_CONFIG_124M generates the ids the book prints", "[gpt]") {
    const json& book = golden().at("book");
    const attn::GptConfig config = config_of(book.at("config"));  // torch's GPT_CONFIG_124M is ours
    const attn::GptConfig ours = attn::gpt_config_124m();
    CHECK(config.vocab_size == ours.vocab_size);
    CHECK(config.context_length == ours.context_length);
    CHECK(config.emb_dim == ours.emb_dim);
    CHECK(config.n_heads == ours.n_heads);
    CHECK(config.n_layers == ours.n_layers);
    CHECK(config.drop_rate == ours.drop_rate);
    CHECK(config.qkv_bias == ours.qkv_bias);
    const attn::GptModel& model = *attn::test::seeded_gpt_ch4(book.at("seed")).model->gpt_weights();
    const std::vector<int64_t> printed{15496, 11, 314, 716, 27018, 24086, 47843, 30961, 42348, 7267};
    CHECK(book.at("generated").get<std::vector<int64_t>>() == printed);  // torch agrees with the book
    CHECK(attn::generate_greedy(model, book.at("ids"), 6) == printed);
    CHECK(attn::generate_cached(model, book.at("ids"), 6) == printed);  // the KV cache changes nothing
}

TEST_CASE("the next tokens: torch's top 10 of the last position's softmax", "[gpt]") {
    for (const json& m : golden().at("models")) {
        INFO(m.at("name").get<std::string>());
        const attn::GptModel model = attn::build_gpt_ch4(config_of(m.at("config")), m.at("seed"));
        const attn::ModelTrace t = attn::gpt_forward(model, m.at("ids"), attn::KeptStages::only({}));
        CHECK(attn::test::next_token_mismatch(t.logits.row(t.logits.rows() - 1), m.at("next_token")) == "");
    }
    const attn::RowVector tied = attn::RowVector::Constant(4, 0.5f);  // equal logits: in id order
    const auto top = attn::top_next_tokens(tied, 10);
    REQUIRE(top.size() == 4);
    CHECK(top[0].id == 0);
    CHECK(top[3].id == 3);
    CHECK(top[2].prob == 0.25f);
}

TEST_CASE("the KV cache: one token at a time gives the full forward's rows", "[gpt]") {
    for (const json& m : golden().at("models")) {
        INFO(m.at("name").get<std::string>());
        const attn::GptModel model = attn::build_gpt_ch4(config_of(m.at("config")), m.at("seed"));
        const std::vector<int64_t> ids = m.at("ids");
        attn::GptCache cache = attn::empty_cache(model);
        for (size_t i = 0; i < ids.size(); ++i) {
            const attn::TokenStep step = attn::append_token(model, cache, ids[i]);
            const std::string at = "token " + std::to_string(i) + " ";
            // Row i of the full forward, as torch computed it.
            json logits_row = json::array({m.at("logits")[i]});
            CHECK(attn::test::mismatch(at + "logits", step.logits, logits_row) == "");
            for (size_t l = 0; l < step.weights.size(); ++l)
                for (size_t h = 0; h < step.weights[l].size(); ++h) {
                    const json& full = m.at("layers")[l].at("weights")[h][i];
                    json seen = json::array({std::vector<double>(full.begin(), full.begin() + static_cast<long>(i) + 1)});
                    CHECK(attn::test::mismatch(at + "layer " + std::to_string(l) + " head " + std::to_string(h) + " weights",
                                   step.weights[l][h], seen) == "");
                }
        }
        const std::vector<int64_t> generated = m.at("generated");
        // The second model's prompt fills its context: the window moves at every new token.
        CHECK(attn::generate_cached(model, ids, static_cast<int>(generated.size() - ids.size())) == generated);
        const attn::GptConfig& cfg = model.cfg;
        if (static_cast<int>(ids.size()) == cfg.context_length)
            CHECK_THROWS_WITH(attn::append_token(model, cache, 0), Catch::Contains("the context is full"));
        else
            CHECK_THROWS_WITH(attn::append_token(model, cache, cfg.vocab_size), Catch::Contains("outside the model's vocabulary"));
        CHECK(cache.ids == ids);  // a refused token leaves the cache as it was
    }
}

TEST_CASE("a GPT model refuses what it cannot run, in one line", "[gpt]") {
    attn::GptConfig cfg;
    cfg.vocab_size = 10;
    cfg.context_length = 4;
    cfg.emb_dim = 8;
    cfg.n_heads = 3;  // 8 is not divisible by 3
    cfg.n_layers = 1;
    CHECK_THROWS_WITH(attn::build_gpt_ch4(cfg, 1), Catch::Contains("divisible by n_heads"));
    cfg.n_heads = 2;
    const attn::GptModel model = attn::build_gpt_ch4(cfg, 1);
    CHECK_THROWS_WITH(attn::gpt_forward(model, {1, 2, 3, 4, 5}), Catch::Contains("context_length is 4"));
    CHECK_THROWS_WITH(attn::gpt_forward(model, {1, 10}), Catch::Contains("token id 10 is outside"));
    CHECK_THROWS_WITH(attn::gpt_forward(model, {}), Catch::Contains("no tokens"));
    CHECK(attn::gpt_forward(model, {0, 9}).logits.rows() == 2);
}

TEST_CASE("the forward a step at a time: a block a step, the logits in blocks, the one product's bit for bit", "[gpt]") {
    attn::GptConfig cfg;
    cfg.vocab_size = 6200;  // blocks of 16 or 17 rows and 2066 or 2067 columns: OpenBLAS's usual kernel
    cfg.context_length = 100;
    cfg.emb_dim = 64;
    cfg.n_heads = 4;
    cfg.n_layers = 3;
    attn::GptModel model = attn::build_gpt_ch4(cfg, 7);
    std::vector<int64_t> ids;
    for (int i = 0; i < 100; ++i) ids.push_back((i * 37 + 11) % cfg.vocab_size);
    const std::vector<attn::KeptStages> keep(3, attn::KeptStages::only({"weights"}));
    for (const bool tied : {false, true}) {  // the book's own out_head, and GPT-2's tied to tok_emb
        INFO((tied ? "tied head" : "out_head"));
        if (tied) model.out_head.reset();
        attn::GptForward forward(model, ids, keep, 1e5);
        // 100 rows: six parts of 16 or 17 rows, each in three parts of the vocabulary.
        CHECK(forward.steps() == 3 + 6 * 3);
        int steps = 0;
        while (!forward.done()) {
            CHECK(forward.steps_done() == steps);
            forward.step();
            ++steps;
        }
        CHECK(steps == 3 + 6 * 3);
        const attn::ModelTrace t = forward.take();
        REQUIRE(t.blocks.size() == 3);
        // One T x vocab product. The same bits as the blocks' where OpenBLAS's kernel does the
        // edges as the middle (Cooper Lake's does); its Haswell kernel sums a block's edge rows
        // in another order, which differs by rounding of a 64-term dot product: within
        // 1e-6 of the logits' scale (3.2e-7 seen with OPENBLAS_CORETYPE=Haswell), not bit for bit.
        const attn::Matrix whole = attn::output_logits(model, t.final_normed);
        const float scale = whole.cwiseAbs().maxCoeff();
        INFO("largest difference " << (t.logits - whole).cwiseAbs().maxCoeff() << " of a scale " << scale);
        CHECK((t.logits - whole).cwiseAbs().maxCoeff() <= 1e-6f * scale);
        CHECK(attn::GptForward(model, ids, keep).steps() == 3 + 6);  // 17 x 64 x 6200 products: a part each
        const attn::ModelTrace once = attn::gpt_forward(model, ids, keep);
        CHECK((once.logits.array() == whole.array()).all());  // gpt_forward's is the one product
        CHECK((once.blocks[2].attention.heads[1].at("weights").array() ==
               t.blocks[2].attention.heads[1].at("weights").array()).all());
    }
    // A short text: its logits in one product.
    CHECK(attn::GptForward(model, {1, 2, 3}, std::vector<attn::KeptStages>(3), 1e5).steps() == 3 + 1);
    CHECK_THROWS_WITH(attn::GptForward(model, {}, std::vector<attn::KeptStages>(3)), Catch::Contains("no tokens"));
}

TEST_CASE("the logits of the shown positions only: those rows of the whole product, the rest from the final LayerNorm", "[gpt]") {
    attn::GptConfig cfg;
    cfg.vocab_size = 6200;
    cfg.context_length = 100;
    cfg.emb_dim = 64;
    cfg.n_heads = 4;
    cfg.n_layers = 2;
    const attn::GptModel model = attn::build_gpt_ch4(cfg, 9);
    std::vector<int64_t> ids;
    for (int i = 0; i < 40; ++i) ids.push_back((i * 53 + 5) % cfg.vocab_size);
    const std::vector<attn::KeptStages> keep(2, attn::KeptStages::only({"weights"}));
    const attn::ModelTrace all = attn::gpt_forward(model, ids, keep);
    CHECK(all.logits.rows() == 40);
    CHECK(all.logit_rows.size() == 40);
    const attn::ModelTrace shown = attn::gpt_forward(model, ids, keep, {7, 39});
    REQUIRE(shown.logits.rows() == 2);
    CHECK(shown.logit_rows == std::vector<Eigen::Index>{7, 39});
    // The same blocks bit for bit up to the last one's MLP, which runs on the shown rows
    // only; each of its outputs and each logit is one dot product, so they agree with the
    // whole products' to float rounding (another product shape).
    CHECK_FALSE(all.last_rows_only);
    CHECK(shown.last_rows_only);
    CHECK((shown.blocks[0].outputs.array() == all.blocks[0].outputs.array()).all());
    CHECK((shown.blocks[1].residual1.array() == all.blocks[1].residual1.array()).all());
    REQUIRE(shown.blocks[1].outputs.rows() == 2);
    REQUIRE(shown.final_normed.rows() == 2);
    const std::vector<Eigen::Index> rows{7, 39};
    const attn::Matrix all_outputs = all.blocks[1].outputs(rows, Eigen::all), all_normed = all.final_normed(rows, Eigen::all);
    CHECK((shown.blocks[1].outputs - all_outputs).cwiseAbs().maxCoeff() <= 1e-6f * all_outputs.cwiseAbs().maxCoeff());
    CHECK((shown.final_normed - all_normed).cwiseAbs().maxCoeff() <= 1e-5f * all_normed.cwiseAbs().maxCoeff());
    // Another position's final LayerNorm: that row's MLP and norm, computed when asked.
    const float norm_scale = all.final_normed.cwiseAbs().maxCoeff();
    CHECK((attn::final_normed_at(model, shown, 20) - all.final_normed.row(20)).cwiseAbs().maxCoeff() <= 1e-5f * norm_scale);
    CHECK((attn::final_normed_at(model, all, 20).array() == all.final_normed.row(20).array()).all());
    CHECK((attn::final_normed_at(model, shown, 39).array() == shown.final_normed.row(1).array()).all());
    CHECK_THROWS(attn::final_normed_at(model, shown, 40));
    const float scale = all.logits.cwiseAbs().maxCoeff();
    CHECK((shown.logits.row(0) - all.logits.row(7)).cwiseAbs().maxCoeff() <= 1e-6f * scale);
    CHECK((shown.logits.row(1) - all.logits.row(39)).cwiseAbs().maxCoeff() <= 1e-6f * scale);
    // logits_at: a computed row as it is, another from final_normed_at.
    CHECK((attn::logits_at(model, shown, 39).array() == shown.logits.row(1).array()).all());
    CHECK((attn::logits_at(model, shown, 20) - all.logits.row(20)).cwiseAbs().maxCoeff() <= 1e-6f * scale);
    CHECK_THROWS(attn::logits_at(model, shown, 40));
    CHECK_THROWS(attn::gpt_forward(model, ids, keep, {40}));
}
