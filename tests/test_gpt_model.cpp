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

// The first element off by more than 1e-4 of the stage's scale, described; empty if none.
std::string mismatch(const std::string& stage, const attn::Matrix& ours, const json& torch) {
    std::ostringstream why;
    if (ours.rows() != static_cast<Eigen::Index>(torch.size()) || ours.cols() != static_cast<Eigen::Index>(torch[0].size())) {
        why << stage << ": shape " << ours.rows() << " x " << ours.cols() << ", torch " << torch.size() << " x "
            << torch[0].size();
        return why.str();
    }
    double scale = 0.0;
    for (const json& row : torch)
        for (const json& v : row) scale = std::max(scale, std::abs(v.get<double>()));
    const double tolerance = 1e-4 * std::max(scale, 1e-30);
    for (Eigen::Index i = 0; i < ours.rows(); ++i)
        for (Eigen::Index j = 0; j < ours.cols(); ++j) {
            const double t = torch[static_cast<size_t>(i)][static_cast<size_t>(j)];
            if (!(std::abs(ours(i, j) - t) <= tolerance)) {
                why << stage << "(" << i << ", " << j << "): " << ours(i, j) << ", torch " << t << " (scale " << scale
                    << ", tolerance " << tolerance << ")";
                return why.str();
            }
        }
    return "";
}

}  // namespace

TEST_CASE("chapter 4's GPTModel: every block, every head's weights and the logits are torch's", "[gpt]") {
    for (const json& m : golden().at("models")) {
        INFO(m.at("name").get<std::string>());
        const attn::GptModel model = attn::build_gpt_ch4(config_of(m.at("config")), m.at("seed"));
        const std::vector<int64_t> ids = m.at("ids");
        const attn::GptTrace t = attn::gpt_forward(model, ids, attn::KeptStages::only({"weights"}));
        REQUIRE(t.blocks.size() == m.at("layers").size());
        for (size_t l = 0; l < t.blocks.size(); ++l) {
            const json& layer = m.at("layers")[l];
            const std::string at = "layer " + std::to_string(l) + " ";
            CHECK(mismatch(at + "residual1", t.blocks[l].residual1, layer.at("residual1")) == "");
            CHECK(mismatch(at + "outputs", t.blocks[l].outputs, layer.at("outputs")) == "");
            const auto& heads = t.blocks[l].attention.heads;
            REQUIRE(heads.size() == layer.at("weights").size());
            for (size_t h = 0; h < heads.size(); ++h)
                CHECK(mismatch(at + "head " + std::to_string(h) + " weights", heads[h].at("weights"),
                               layer.at("weights")[h]) == "");
        }
        CHECK(mismatch("logits", t.logits, m.at("logits")) == "");
        const std::vector<int64_t> generated = m.at("generated");
        CHECK(attn::generate_greedy(model, ids, static_cast<int>(generated.size() - ids.size())) == generated);
    }
}

TEST_CASE("chapter 4's seeded GPT_CONFIG_124M generates the ids the book prints", "[gpt]") {
    const json& book = golden().at("book");
    const attn::GptModel model = attn::build_gpt_ch4(config_of(book.at("config")), book.at("seed"));
    const std::vector<int64_t> printed{15496, 11, 314, 716, 27018, 24086, 47843, 30961, 42348, 7267};
    CHECK(book.at("generated").get<std::vector<int64_t>>() == printed);  // torch agrees with the book
    CHECK(attn::generate_greedy(model, book.at("ids"), 6) == printed);
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
