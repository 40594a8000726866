// Every stage of every golden configuration against PyTorch.
// tests/golden/golden.json is written by tests/golden/make_golden.py, which runs the
// seed documents' classes with Debian's torch, and modern_golden.json by
// make_modern_golden.py, which runs the book's ch04 bonus classes; never edit them by hand.
// Each entry's args go through the CLI's own path (parse_settings -> compute ->
// write_run_json), and the printed object must equal torch's key for key and number for
// number within 1e-5 + 1e-5 * |torch|.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/pipeline.h"
#include "settings/settings.h"
#include "output/trace_json.h"

using nlohmann::json;

namespace {

// golden.json (the chapter 3 modules, make_golden.py) and modern_golden.json (today's
// variants, make_modern_golden.py): one list of configurations.
const json& golden() {
    static const json doc = [] {
        // ATTNSCOPE_GOLDEN_FILE: another file of the same form (e.g. a deliberately altered
        // copy, to see that a wrong number fails and is named), read alone.
        const char* other = std::getenv("ATTNSCOPE_GOLDEN_FILE");
        const std::string dir = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/";
        const std::vector<std::string> files =
            other ? std::vector<std::string>{other} : std::vector<std::string>{dir + "golden.json", dir + "modern_golden.json"};
        json all = {{"configs", json::array()}};
        for (const std::string& file : files) {
            std::ifstream in(file);
            if (!in) throw std::runtime_error("cannot open " + file + " (run tests/golden/make_golden.py, make_modern_golden.py)");
            json doc = json::parse(in);
            for (json& c : doc.at("configs")) all["configs"].push_back(std::move(c));
        }
        return all;
    }();
    return doc;
}

// Keys the CLI may print that torch cannot know (none are printed without --time).
const std::set<std::string> kCliOnlyKeys = {"timing_us"};

// The largest |cli - torch| per stage name over all configurations (for the report).
std::map<std::string, double>& worst_by_stage() {
    static std::map<std::string, double> worst;
    return worst;
}

struct Comparer {
    std::vector<std::string> failures;
    size_t numbers = 0;

    void fail(const std::string& path, const std::string& what) {
        failures.push_back(path + ": " + what);
    }

    // `stage` is the innermost object key above this value (e.g. "weights").
    void compare(const json& cli, const json& torch, const std::string& path, const std::string& stage) {
        if (torch.is_object()) {
            if (!cli.is_object()) return fail(path, "CLI has no object here");
            for (const auto& [key, value] : torch.items()) {
                if (!cli.contains(key)) fail(path + "." + key, "missing from the CLI's output");
                else compare(cli.at(key), value, path + "." + key, key);
            }
            for (const auto& [key, value] : cli.items())
                if (!torch.contains(key) && !kCliOnlyKeys.count(key))
                    fail(path + "." + key, "printed by the CLI but not in torch's expected object");
        } else if (torch.is_array()) {
            if (!cli.is_array()) return fail(path, "CLI has no list here");
            if (cli.size() != torch.size())
                return fail(path, "length " + std::to_string(cli.size()) + ", torch " + std::to_string(torch.size()));
            for (size_t i = 0; i < torch.size(); ++i)
                compare(cli[i], torch[i], path + "[" + std::to_string(i) + "]", stage);
        } else if (torch.is_null()) {
            if (!cli.is_null()) fail(path, "CLI " + cli.dump() + ", torch null (-inf)");
        } else if (torch.is_number()) {
            if (!cli.is_number()) return fail(path, "CLI " + cli.dump() + ", torch " + torch.dump());
            ++numbers;
            const double a = cli.get<double>();
            const double b = torch.get<double>();
            const double diff = std::fabs(a - b);
            double& worst = worst_by_stage()[stage];
            if (!(diff <= worst)) worst = diff;
            if (!(diff <= 1e-5 + 1e-5 * std::fabs(b))) {
                std::ostringstream msg;
                msg.precision(9);
                msg << "CLI " << a << ", torch " << b << " (|diff| " << diff << ")";
                fail(path, msg.str());
            }
        } else if (cli != torch) {
            fail(path, "CLI " + cli.dump() + ", torch " + torch.dump());
        }
    }
};

json run_cli_path(const std::vector<std::string>& args) {
    const attn::ParsedArgs parsed = attn::parse_settings(args);
    REQUIRE(parsed.rest.empty());
    const attn::Run run = attn::compute(parsed.settings);
    std::ostringstream out;
    attn::write_run_json(out, run, {}, std::nullopt);
    return json::parse(out.str());
}

}  // namespace

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

TEST_CASE("every stage of every golden configuration matches PyTorch within 1e-5", "[golden]") {
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
            REQUIRE_NOTHROW(cli = run_cli_path(args));
            Comparer cmp;
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
                std::cout << "largest |cli - torch| per stage over all golden configurations:\n";
                for (const auto& [stage, worst] : worst_by_stage()) std::cout << "  " << stage << " " << worst << "\n";
            }
        }
    }
}
