// Every stage of every golden configuration against PyTorch.
// tests/golden/golden.json is written by tests/golden/make_golden.py, which runs the
// seed documents' classes with Debian's torch, and modern_golden.json by
// make_modern_golden.py, which runs the book's ch04 bonus classes; never edit them by hand.
// Each entry's args go through the CLI's own path (parse_settings -> compute ->
// write_run_json), and the printed object must equal torch's key for key, and number for
// number within kStageRelative of the stage's scale (golden_compare.h, tolerance.h).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "golden_compare.h"
#include "settings/settings.h"

using nlohmann::json;
using attn::test::GoldenComparer;
using attn::test::golden;

TEST_CASE("golden file covers every variant with at least 40 configurations", "[golden]") {
    const json& configs = golden().at("configs");
    CHECK(configs.size() >= 40);
    std::set<std::string> variants;
    for (const json& c : configs) variants.insert(c.at("expected").at("variant").get<std::string>());
    for (const std::string& v : attn::variant_names()) {
        INFO("variant " << v);
        CHECK(variants.count(v) == 1);
    }
}

TEST_CASE("every stage of every golden configuration matches PyTorch within rounding of its scale", "[golden]") {
    const json& configs = golden().at("configs");
    for (size_t index = 0; index < configs.size(); ++index) {
        const json& c = configs[index];
        const std::string name = c.at("name").get<std::string>();
        DYNAMIC_SECTION("golden: " << name) {
            const std::vector<std::string> args = c.at("args").get<std::vector<std::string>>();
            std::string joined;
            for (const std::string& a : args) joined += (joined.empty() ? "" : " ") + ("'" + a + "'");
            INFO("config '" << name << "': attnscope-cli " << joined);
            json cli;
            REQUIRE_NOTHROW(cli = attn::test::cli_json(args));
            GoldenComparer cmp;
            cmp.compare(cli, c.at("expected"), "", "");
            size_t shown = 0;
            for (const std::string& f : cmp.failures) {
                if (++shown > 20) break;
                FAIL_CHECK("[" << name << "] " << f.substr(1));
            }
            INFO(cmp.failures.size() << " of " << cmp.numbers << " numbers or keys differ");
            CHECK(cmp.failures.empty());
            CHECK(cmp.numbers > 0);
            // Catch2 reruns the test case once per section: report after the last one.
            if (index + 1 == configs.size() && std::getenv("ATTNSCOPE_GOLDEN_REPORT")) {
                std::cout << "largest |cli - torch| / the stage's scale, per stage, over all golden configurations:\n";
                for (const auto& [stage, worst] : GoldenComparer::worst_by_stage()) std::cout << "  " << stage << " " << worst << "\n";
            }
        }
    }
}
