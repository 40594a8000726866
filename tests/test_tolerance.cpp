// The golden tolerance (tolerance.h) is loose enough for rounding and tight enough for real
// errors, in each suite that compares with PyTorch: chapter 3's golden data, the chapter 4
// bonus variants', the seed documents' printed tensors and the models'. For each, the
// engine's own stage passes, and so does that stage moved by one ulp of its scale; then
// three errors an implementation can make must fail:
//  - a dropped term: the sum over keys one short (the last key the last query sees),
//  - a wrong scale: the weights as softmax(scores / sqrt(d_in)), not sqrt(head_dim),
//  - two rows swapped in the context vectors.
// Built from torch's numbers and the engine's own run, so a suite whose comparison could not
// fail cannot pass here.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "golden_compare.h"
#include "model/gpt2_checkpoint.h"
#include "model/gpt_forward.h"
#include "seed_checks.h"
#include "stage_mismatch.h"

using nlohmann::json;

namespace {

// Each element moved by one ulp of the stage's scale, up and down in turn.
Matrix one_ulp_of_scale(const Matrix& m) {
    const float step = static_cast<float>(attn::test::stage_scale(m) * 0x1p-23);
    Matrix moved = m;
    for (Eigen::Index i = 0; i < moved.size(); ++i)
        if (std::isfinite(moved.data()[i])) moved.data()[i] += (i % 2 == 0 ? step : -step);
    return moved;
}

// context = weights * values with the last term of the last row left out: the last key
// with a nonzero weight for the last query (after dropout, where it ran).
Matrix dropped_term(const Matrix& context, const Matrix& weights, const Matrix& values) {
    const Eigen::Index last = weights.rows() - 1;
    Eigen::Index key = weights.cols() - 1;
    while (key > 0 && weights(last, key) == 0.0f) --key;
    Matrix wrong = context;
    wrong.row(last) -= weights(last, key) * values.row(key);
    return wrong;
}

// softmax over each row of scores / sqrt(d), -inf where `masked` is -inf.
Matrix weights_scaled_by(const Matrix& scores, const Matrix& masked, double d) {
    Matrix w(scores.rows(), scores.cols());
    for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        double max = -INFINITY, sum = 0.0;
        for (Eigen::Index j = 0; j < scores.cols(); ++j)
            if (std::isfinite(masked(i, j))) max = std::max(max, scores(i, j) / std::sqrt(d));
        for (Eigen::Index j = 0; j < scores.cols(); ++j) {
            const double e = std::isfinite(masked(i, j)) ? std::exp(scores(i, j) / std::sqrt(d) - max) : 0.0;
            w(i, j) = static_cast<float>(e);
            sum += e;
        }
        w.row(i) /= static_cast<float>(sum);
    }
    return w;
}

Matrix rows_swapped(const Matrix& m, Eigen::Index a, Eigen::Index b) {
    Matrix wrong = m;
    wrong.row(a).swap(wrong.row(b));
    return wrong;
}

// One head's stages, whichever suite they came from.
struct HeadStages {
    Matrix scores, masked_scores, weights, dropped_weights, values, context;
    double d_in = 0.0, head_dim = 0.0;
};

// `passes(stage, matrix)`: the suite's comparison with `stage` replaced by `matrix`.
using Passes = std::function<bool(const std::string& stage, const Matrix& matrix)>;

void check_weights_tolerance(const HeadStages& h, const Passes& passes) {
    CHECK(passes("weights", h.weights));
    CHECK(passes("weights", one_ulp_of_scale(h.weights)));
    // The wrong scale's construction is right: with the head's own scale it passes.
    CHECK(passes("weights", weights_scaled_by(h.scores, h.masked_scores, h.head_dim)));
    REQUIRE(h.d_in != h.head_dim);
    CHECK_FALSE(passes("weights", weights_scaled_by(h.scores, h.masked_scores, h.d_in)));
}

void check_context_tolerance(const HeadStages& h, const Passes& passes) {
    CHECK(passes("context", h.context));
    CHECK(passes("context", one_ulp_of_scale(h.context)));
    CHECK_FALSE(passes("context", dropped_term(h.context, h.dropped_weights, h.values)));
    CHECK_FALSE(passes("context", rows_swapped(h.context, 0, h.context.rows() - 1)));
}

void check_tolerance_separates(const HeadStages& h, const Passes& passes) {
    check_weights_tolerance(h, passes);
    check_context_tolerance(h, passes);
}

Matrix matrix_of(const json& rows) {
    Matrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.at(0).size()));
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const json& v = rows[static_cast<size_t>(i)][static_cast<size_t>(j)];
            m(i, j) = v.is_null() ? -INFINITY : v.get<float>();
        }
    return m;
}

json json_of(const Matrix& m) {
    json rows = json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        json row = json::array();
        for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(std::isfinite(m(i, j)) ? json(m(i, j)) : json(nullptr));
        rows.push_back(row);
    }
    return rows;
}

// A golden configuration's first head as the CLI prints it, and the comparison of the whole
// printed object with torch's after one of its stages is replaced.
void check_golden_config(const std::string& name) {
    const json* config = nullptr;
    for (const json& c : attn::test::golden().at("configs"))
        if (c.at("name") == name) config = &c;
    REQUIRE(config != nullptr);
    const json cli = attn::test::cli_json(config->at("args").get<std::vector<std::string>>());
    const json& head = cli.at("heads").at(0);
    HeadStages h{matrix_of(head.at("scores")), matrix_of(head.at("masked_scores")), matrix_of(head.at("weights")),
                 matrix_of(head.value("dropped_weights", head.at("weights"))), matrix_of(head.at("values")),
                 matrix_of(head.at("context"))};
    h.d_in = static_cast<double>(cli.at("inputs").at(0).size());
    h.head_dim = static_cast<double>(head.at("queries").at(0).size());
    check_tolerance_separates(h, [&](const std::string& stage, const Matrix& m) {
        json changed = cli;
        changed["heads"][0][stage] = json_of(m);
        attn::test::GoldenComparer cmp;
        cmp.compare(changed, config->at("expected"));
        return cmp.failures.empty();
    });
}

}  // namespace

TEST_CASE("the golden tolerance passes rounding and fails real errors: chapter 3", "[golden]") {
    check_golden_config("self-v2 causal qkv-bias pos");
    check_golden_config("self-v1 default vocab 50000 d_in 64 embed-seed 3");
}

TEST_CASE("the golden tolerance passes rounding and fails real errors: chapter 4 bonus variants", "[golden]") {
    check_golden_config("gqa rope pos qkv-bias 4 heads 2 groups");
    check_golden_config("mla qkv-bias pos latent 3");
}

TEST_CASE("the golden tolerance passes rounding and fails real errors: the seeds' printed tensors", "[seeds]") {
    // 000 3.5.1's causal weights of SelfAttention_v2(3, 2) (seed 789), 3.5.3's CausalAttention
    // output (seed 123, one head: its context), each against what the seed printed.
    const attn::Run a = run(with(kBook, {"--variant", "self-v2", "--causal", "--seed", "789"}));
    const attn::HeadTrace& weights_head = head(a);
    check_weights_tolerance({weights_head.at("scores"), unscaled_masked(weights_head), weights_head.at("weights"), {}, {}, {},
                             3.0, 2.0},
                            [](const std::string&, const Matrix& m) { return printed_mismatch(m, causal_789_weights()).empty(); });
    const attn::Run b = run(with(kBook, {"--variant", "causal", "--dropout", "0.0"}));
    const attn::HeadTrace& context_head = head(b);
    check_context_tolerance({{}, {}, {}, context_head.at("weights"), context_head.at("values"), context_head.at("context"), 3.0,
                             2.0},
                            [](const std::string&, const Matrix& m) { return printed_mismatch(m, causal_123_output()).empty(); });
}

TEST_CASE("the golden tolerance passes rounding and fails real errors: models", "[gpt][checkpoint]") {
    const json& g = [] {
        static const json doc = json::parse(std::ifstream(std::string(ATTNSCOPE_TESTS_DIR) + "/golden/checkpoint_golden.json"));
        return std::cref(doc.at("checkpoints").at(0));
    }();
    const attn::Gpt2Checkpoint c =
        attn::load_gpt2_checkpoint(std::string(ATTNSCOPE_TESTS_DIR) + "/golden/" + g.at("file").get<std::string>());
    const attn::ModelTrace t = attn::gpt_forward(c.model, g.at("ids").get<std::vector<int64_t>>());
    const json& d = g.at("detail");
    const attn::HeadTrace& head = t.blocks.at(d.at("layer").get<size_t>()).attention.heads.at(d.at("head").get<size_t>());
    HeadStages h{head.at("scores"), head.at("masked_scores"), head.at("weights"), head.at("weights"), head.at("values"),
                 head.at("context"), static_cast<double>(c.model.cfg.emb_dim),
                 static_cast<double>(c.model.cfg.emb_dim / c.model.cfg.n_heads)};
    check_tolerance_separates(h, [&](const std::string& stage, const Matrix& m) {
        return attn::test::mismatch(stage, m, d.at(stage)).empty();
    });
}
