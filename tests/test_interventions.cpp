// Interventions against PyTorch with forward hooks on the same modules:
// tests/golden/intervention_golden.json, written by tests/golden/make_intervention_golden.py
// (never by hand). GPT-2-shaped checkpoints in F32 and BF16 and the shipped model,
// grouped-query Llama-family models in F16 and BF16 and Qwen3 with its q/k norms: heads
// switched off (zero, mean, at some positions), patched from another text, the logit lens,
// a logit split into its parts, every head's effect. Each number within kModelRelative of
// its key's scale (tolerance.h); ids and names exactly. Then what must change nothing
// changes nothing, bit for bit, and bad requests are refused in one line.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "interventions/hooked_run.h"
#include "model/gpt_forward.h"
#include "model/language_model.h"
#include "model/llama_forward.h"
#include "output/intervention_json.h"
#include "run/intervention_run.h"
#include "run/model_run.h"
#include "tolerance.h"

using nlohmann::json;

namespace {

const std::string kTests = std::string(ATTNSCOPE_TESTS_DIR) + "/";

const json& golden() {
    static const json doc = [] {
        std::ifstream in(kTests + "golden/intervention_golden.json");
        if (!in) throw std::runtime_error("cannot open tests/golden/intervention_golden.json (run make_intervention_golden.py)");
        return json::parse(in);
    }();
    return doc;
}

std::string model_path(const json& model) {
    const std::string name = model["model"];
    return name == attn::kShippedModel ? name : kTests + name;
}

// The largest |number| anywhere in `v`.
double scale_of(const json& v) {
    if (v.is_number_float()) return std::abs(v.get<double>());
    double scale = 0.0;
    if (v.is_array() || v.is_object())
        for (const json& item : v) scale = std::max(scale, scale_of(item));
    return scale;
}

// Every key of torch's object in ours (ours may have more: tokens' text), numbers within
// kModelRelative of `scale`, the rest exactly. The first difference, "" if none.
std::string differs(const json& ours, const json& torch, double scale, const std::string& path) {
    if (torch.is_object()) {
        for (const auto& [key, value] : torch.items()) {
            if (!ours.contains(key)) return path + "." + key + ": missing";
            if (std::string why = differs(ours.at(key), value, scale, path + "." + key); !why.empty()) return why;
        }
        return "";
    }
    if (torch.is_array()) {
        if (!ours.is_array() || ours.size() != torch.size())
            return path + ": length " + std::to_string(ours.size()) + ", torch " + std::to_string(torch.size());
        for (size_t i = 0; i < torch.size(); ++i)
            if (std::string why = differs(ours[i], torch[i], scale, path + "[" + std::to_string(i) + "]"); !why.empty())
                return why;
        return "";
    }
    if (torch.is_number_float()) {
        const double diff = std::abs(ours.get<double>() - torch.get<double>());
        if (diff <= attn::test::kModelRelative * scale) return "";
        std::ostringstream why;
        why.precision(9);
        why << path << ": " << ours.get<double>() << ", torch " << torch.get<double>() << " (scale " << scale << ")";
        return why.str();
    }
    return ours == torch ? "" : path + ": " + ours.dump() + ", torch " + torch.dump();
}

attn::InterventionFlags flags_of(const json& f) {
    attn::InterventionFlags flags;
    const auto text = [&](const char* key) { return f.contains(key) ? std::optional<std::string>(f[key]) : std::nullopt; };
    flags.ablate = text("ablate");
    flags.ablate_mode = text("ablate_mode");
    flags.ablate_at = text("ablate_at");
    flags.patch = text("patch");
    flags.patch_at = text("patch_at");
    flags.patch_from_ids = text("patch_from_ids");
    flags.attribute = text("attribute");
    flags.head_effects = text("head_effects");
    flags.logit_lens = f.value("logit_lens", false);
    return flags;
}

std::string ids_text(const std::vector<int64_t>& ids) {
    std::string text;
    for (const int64_t id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
    return text;
}

// The app's changed run (run_model with Settings::ablate or patch) against the CLI's hooked
// run: the next tokens with and without the change, a later head's weights; and typing does
// not step through the KV cache, which has no hook.
void check_app_run_is_hooked(const attn::ModelRun& run, const attn::InterventionRun& hooked,
                             const attn::LoadedModel& loaded) {
    REQUIRE(run.next_tokens.size() == hooked.next_tokens.size());
    for (size_t i = 0; i < run.next_tokens.size(); ++i) {
        CHECK(run.next_tokens[i].id == hooked.next_tokens[i].id);
        CHECK(std::abs(run.next_tokens[i].prob - hooked.next_tokens[i].prob) <= 1e-5f);
        CHECK(run.baseline_next_tokens[i].id == hooked.baseline_next_tokens[i].id);
    }
    const attn::Matrix& ours = run.trace->blocks[1].attention.heads[3].at("weights");
    const attn::Matrix& theirs = hooked.changed->blocks[1].attention.heads[3].at("weights");
    CHECK((ours - theirs).cwiseAbs().maxCoeff() <= 1e-6f);
    CHECK_FALSE(attn::extend_model_run(run, attn::with_token(loaded, run.tokens, 7)).has_value());
}

}  // namespace

TEST_CASE("Interventions on every family are PyTorch's with hooks: ablation, patching, logit lens, attribution, "
          "head effects",
          "[gpt][llama][interventions]") {
    REQUIRE(golden()["models"].size() == 6);
    for (const json& model : golden()["models"]) {
        INFO(model["model"].get<std::string>() << " (" << model["dtype"].get<std::string>() << ")");
        attn::Settings s;
        s.model = model_path(model);
        s.ids = ids_text(model["token_ids"]);
        const attn::LoadedModel loaded = attn::load_model(*s.model, 0);
        for (const json& c : model["cases"]) {
            INFO("flags " << c["flags"].dump());
            if (!c["next_at"].is_null()) s.next_at = c["next_at"].get<int>();
            else s.next_at.reset();
            const attn::InterventionRun run =
                attn::run_interventions(s, flags_of(c["flags"]), loaded, attn::default_budget());
            std::ostringstream out;
            attn::write_intervention_json(out, run);
            const json ours = json::parse(out.str());
            for (const auto& [key, torch] : c["expected"].items()) {
                double scale = scale_of(torch);
                // An effect is a difference of two values of the metric: each carries the
                // metric's rounding. A component's share carries the logit's.
                if (key == "head_effects") scale = std::max(scale, scale_of(c["expected"]["head_effects_metric"]));
                if (key == "attribution") scale = std::max(scale, std::abs(torch["logit"].get<double>()));
                CHECK(differs(ours.at(key), torch, scale, key) == "");
            }
            if (run.attribution) {  // the parts add up to the logit
                double sum = 0.0;
                for (const attn::LogitComponent& part : run.attribution->components) sum += part.value;
                CHECK(std::abs(sum - run.attribution->logit) <= attn::test::kModelRelative * std::abs(run.attribution->logit) + 1e-6);
            }
        }
    }
}

TEST_CASE("Switching nothing off and patching a head from its own text change nothing, bit for bit, and a run "
          "through the model interface is the forward's",
          "[gpt][llama][interventions]") {
    for (const std::string& name : {std::string(attn::kShippedModel), kTests + "golden/llama/qwen3-qknorm-mqa-f32"}) {
        INFO(name);
        const attn::LoadedModel loaded = attn::load_model(name, 0);
        const auto lm = loaded.model;
        const std::vector<int64_t> ids = {5, 17, 3, 42, 8, 17, 3};
        const attn::ModelActivations plain = attn::run_activations(*lm, ids);
        attn::Intervention same;
        same.kind = attn::Intervention::Kind::Patch;
        same.heads = {{0, 0}, {1, 1}};
        same.source = std::make_shared<attn::ModelActivations>(plain);
        const attn::ModelActivations patched = attn::run_activations(*lm, ids, same);
        attn::Intervention nothing;
        nothing.kind = attn::Intervention::Kind::Zero;  // on no head
        const attn::ModelActivations none = attn::run_activations(*lm, ids, nothing);
        for (size_t l = 0; l < plain.blocks.size(); ++l) {
            CHECK(patched.blocks[l].outputs == plain.blocks[l].outputs);
            CHECK(none.blocks[l].outputs == plain.blocks[l].outputs);
        }
        // The traced forward the views draw computes the same residual stream.
        const std::unique_ptr<attn::TracedForward> forward =
            lm->traced_forward(ids, std::vector<attn::KeptStages>(plain.blocks.size(), attn::KeptStages{}), {});
        while (!forward->done()) forward->step();
        const attn::ModelTrace trace = forward->take();
        for (size_t l = 0; l < plain.blocks.size(); ++l) CHECK(trace.blocks[l].outputs == plain.blocks[l].outputs);
    }
}

TEST_CASE("Interventions refuse what the model or the text lacks in one line", "[interventions]") {
    attn::Settings s;
    s.model = attn::kShippedModel;
    s.ids = "5,17,3,42";
    const attn::LoadedModel loaded = attn::load_model(*s.model, 0);
    const auto refused = [&](attn::InterventionFlags f) -> std::string {
        try {
            attn::run_interventions(s, f, loaded, attn::default_budget());
        } catch (const attn::UserError& e) {
            return e.what();
        }
        return "";
    };
    attn::InterventionFlags f;
    f.ablate = "4.0";
    CHECK(refused(f) == "--ablate: the model has layers 0..3, got 4.0");
    f.ablate = "0.8";
    CHECK(refused(f) == "--ablate: the model has heads 0..7 a layer, got 0.8");
    f.ablate = "0.1,0.1";
    CHECK(refused(f) == "--ablate names 0.1 twice");
    f.ablate = "0.1";
    f.ablate_at = "4";
    CHECK(refused(f) == "--ablate-at: position 4 is past the text (4 tokens: 0..3)");
    f = {};
    f.patch = "0.1";
    f.patch_from_ids = "1,2,3";
    CHECK(refused(f) == "--patch-from has 3 tokens and the text 4: a patch needs texts of as many tokens");
    f = {};
    f.attribute = "50257";
    CHECK(refused(f) == "--attribute: token id 50257 is outside the model's vocabulary (0..50256)");
    f = {};
    f.head_effects = "logit-diff:5";
    CHECK(refused(f) == "--head-effects logit-diff needs two token ids, ID1,ID2");
    f = {};
    f.logit_lens = true;
    s.next_at = 9;
    CHECK(refused(f) == "--next-at 9: the text has 4 tokens (positions 0..3)");
}

TEST_CASE("A model run with heads switched off (the app's, Settings::ablate) is the hooked run's", "[gpt][llama][interventions]") {
    for (const std::string& name : {std::string(attn::kShippedModel), kTests + "golden/llama/qwen2-bias-f16-shards"}) {
        INFO(name);
        attn::Settings s;
        s.model = name;
        s.ids = "5,17,3,42,8,17,3";
        s.ablate = "0.1,1.2";
        const attn::LoadedModel loaded = attn::load_model(name, 0);
        const attn::ModelRun run = attn::run_model(s, loaded, attn::default_budget());
        attn::InterventionFlags flags;
        flags.ablate = s.ablate;
        const attn::InterventionRun hooked = attn::run_interventions(s, flags, loaded, attn::default_budget());
        REQUIRE(run.switched_off == std::vector<attn::HeadSite>{{0, 1}, {1, 2}});
        check_app_run_is_hooked(run, hooked, loaded);
        s.generate = 2;
        CHECK_THROWS_WITH(attn::run_model(s, loaded, attn::default_budget()),
                          "generating with heads switched off is not joined yet (generation runs through the KV cache): "
                          "switch them back on, or generate 0");
    }
}

TEST_CASE("A model run with heads patched from another text (the app's, Settings::patch) is the hooked run's",
          "[gpt][llama][interventions]") {
    for (const std::string& name : {std::string(attn::kShippedModel), kTests + "golden/llama/qwen2-bias-f16-shards"}) {
        INFO(name);
        attn::Settings s;
        s.model = name;
        s.ids = "5,17,3,42,8,17,3";  // the test's Llama-family folders have no tokenizer
        s.patch = "1.2,0.1";
        s.patch_from = "5,19,3,42,8,19,3";
        const attn::LoadedModel loaded = attn::load_model(name, 0);
        const attn::ModelRun run = attn::run_model(s, loaded, attn::default_budget());
        attn::InterventionFlags flags;
        flags.patch = s.patch;
        flags.patch_from_ids = s.patch_from;
        const attn::InterventionRun hooked = attn::run_interventions(s, flags, loaded, attn::default_budget());
        REQUIRE(run.patched == std::vector<attn::HeadSite>{{0, 1}, {1, 2}});
        REQUIRE(run.patch_tokens->ids == hooked.patch_tokens->ids);
        check_app_run_is_hooked(run, hooked, loaded);
        // Refused in one line: another length, no other text, heads switched off beside.
        s.patch_from = "5,19";
        CHECK_THROWS_WITH(attn::run_model(s, loaded, attn::default_budget()),
                          Catch::Matchers::StartsWith("the patch's text has ") &&
                              Catch::Matchers::EndsWith(": a patch needs texts of as many tokens"));
        s.patch_from.reset();
        CHECK_THROWS_WITH(attn::run_model(s, loaded, attn::default_budget()),
                          "patching heads needs the other text they are taken from (--patch-from TEXT)");
        s.patch_from = "5";
        s.ablate = "0.0";
        CHECK_THROWS_WITH(attn::run_model(s, loaded, attn::default_budget()),
                          "heads are switched off: switch them back on to patch heads (one change a run)");
    }
}

TEST_CASE("A tile's switch adds its head to Settings::ablate or takes it out", "[interventions]") {
    std::optional<std::string> list;
    list = attn::toggle_head(list, {2, 1});
    CHECK(list == "2.1");
    list = attn::toggle_head(list, {0, 5});
    CHECK(list == "0.5,2.1");
    list = attn::toggle_head(list, {2, 1});
    CHECK(list == "0.5");
    CHECK_FALSE(attn::toggle_head(list, {0, 5}).has_value());
}

TEST_CASE("A model run's logit lens (the app's, Settings::logit_lens) is the hooked run's at its positions",
          "[gpt][llama][interventions]") {
    for (const std::string& name : {std::string(attn::kShippedModel), kTests + "golden/llama/qwen2-bias-f16-shards"}) {
        INFO(name);
        attn::Settings s;
        s.model = name;
        s.ids = "5,17,3,42,8,17,3,9,11,60,5,17,3,42,8,2,7,19,23,31";  // 20 tokens: the lens reads 16
        s.next_at = 18;
        s.ablate = "1.2";  // the lens of the changed run, as the CLI's
        s.logit_lens = true;
        const attn::LoadedModel loaded = attn::load_model(name, 0);
        const attn::ModelRun run = attn::run_model(s, loaded, attn::default_budget());
        attn::InterventionFlags flags;
        flags.ablate = s.ablate;
        flags.logit_lens = true;
        const attn::InterventionRun hooked = attn::run_interventions(s, flags, loaded, attn::default_budget());
        REQUIRE(hooked.lens);
        std::vector<int64_t> positions;
        for (int64_t p = 3; p <= 18; ++p) positions.push_back(p);
        CHECK(run.lens_positions == positions);
        REQUIRE(run.lens.size() == static_cast<size_t>(attn::model_shape(loaded).layers) + 1);
        REQUIRE(run.lens.size() == hooked.lens->size());
        for (size_t e = 0; e < run.lens.size(); ++e)
            for (size_t i = 0; i < positions.size(); ++i) {
                INFO("entry " << e << ", position " << positions[i]);
                const auto& ours = run.lens[e][i];
                const auto& theirs = (*hooked.lens)[e][static_cast<size_t>(positions[i])];
                REQUIRE(ours.size() == 5);
                REQUIRE(theirs.size() == 5);
                CHECK(ours.front().id == theirs.front().id);
                for (size_t k = 0; k < 5; ++k) CHECK(std::abs(ours[k].prob - theirs[k].prob) <= attn::test::kModelRelative);
            }
        CHECK(run.lens.back().back().front().id == run.next_tokens.front().id);  // the last entry is the model's own
        s.logit_lens = false;
        CHECK(attn::run_model(s, loaded, attn::default_budget()).lens.empty());
    }
}

TEST_CASE("A model run's logit split into its parts (the app's, Settings::attribute) is the hooked run's",
          "[gpt][llama][interventions]") {
    for (const std::string& name : {std::string(attn::kShippedModel), kTests + "golden/llama/qwen2-bias-f16-shards"}) {
        INFO(name);
        attn::Settings s;
        s.model = name;
        s.ids = "5,17,3,42,8,17,3";
        s.next_at = 5;
        s.ablate = "0.1";
        s.attribute = "17,3";
        const attn::LoadedModel loaded = attn::load_model(name, 0);
        const attn::ModelRun run = attn::run_model(s, loaded, attn::default_budget());
        attn::InterventionFlags flags;
        flags.ablate = s.ablate;
        flags.attribute = s.attribute;
        const attn::InterventionRun hooked = attn::run_interventions(s, flags, loaded, attn::default_budget());
        REQUIRE(run.attribution);
        REQUIRE(hooked.attribution);
        const attn::Attribution &ours = *run.attribution, &theirs = *hooked.attribution;
        CHECK(ours.position == 5);
        CHECK(ours.id == 17);
        CHECK(ours.minus_id == std::optional<int64_t>(3));
        CHECK(ours.logit == theirs.logit);  // the same forward through the same interface: bit for bit
        REQUIRE(ours.components.size() == theirs.components.size());
        for (size_t i = 0; i < ours.components.size(); ++i) {
            CHECK(ours.components[i].name == theirs.components[i].name);
            CHECK(ours.components[i].value == theirs.components[i].value);
        }
        s.attribute = "17,100000";
        CHECK_THROWS_WITH(attn::run_model(s, loaded, attn::default_budget()),
                          Catch::Contains("--attribute") && Catch::Contains("100000"));
    }
}
