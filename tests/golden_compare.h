#pragma once
// The CLI's trace JSON against torch's expected object (golden.json, modern_golden.json):
// the same keys both ways at every level, the same strings and integers, null (a masked
// -inf) only where torch has null, and every other number within kStageRelative of its
// stage's scale (tolerance.h): the largest |value| torch gives under the same key (one
// head's `weights`, the whole `output`).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/trace_json.h"
#include "run/pipeline.h"
#include "settings/settings.h"
#include "tolerance.h"

namespace attn::test {

class GoldenComparer {
public:
    std::vector<std::string> failures;
    size_t numbers = 0;

    // The largest |cli - torch| / scale per stage name, over every comparison made (a report).
    static std::map<std::string, double>& worst_by_stage() {
        static std::map<std::string, double> worst;
        return worst;
    }

    // The largest finite |number| anywhere in `torch` (0 for none).
    static double scale_of(const nlohmann::json& torch) {
        if (torch.is_number()) return std::abs(torch.get<double>());
        double scale = 0.0;
        if (torch.is_array() || torch.is_object())
            for (const nlohmann::json& v : torch) scale = std::max(scale, scale_of(v));
        return scale;
    }

    // `stage` is the innermost object key above this value (e.g. "weights"), `scale` its scale.
    void compare(const nlohmann::json& cli, const nlohmann::json& torch, const std::string& path = "",
                 const std::string& stage = "", double scale = 0.0) {
        if (torch.is_object()) {
            if (!cli.is_object()) return fail(path, "CLI has no object here");
            for (const auto& [key, value] : torch.items()) {
                if (!cli.contains(key)) fail(path + "." + key, "missing from the CLI's output");
                else compare(cli.at(key), value, path + "." + key, key, scale_of(value));
            }
            for (const auto& [key, value] : cli.items())
                if (!torch.contains(key) && !cli_only_keys().count(key))
                    fail(path + "." + key, "printed by the CLI but not in torch's expected object");
        } else if (torch.is_array()) {
            if (!cli.is_array()) return fail(path, "CLI has no list here");
            if (cli.size() != torch.size())
                return fail(path, "length " + std::to_string(cli.size()) + ", torch " + std::to_string(torch.size()));
            for (size_t i = 0; i < torch.size(); ++i) compare(cli[i], torch[i], path + "[" + std::to_string(i) + "]", stage, scale);
        } else if (torch.is_null()) {
            if (!cli.is_null()) fail(path, "CLI " + cli.dump() + ", torch null (-inf)");
        } else if (torch.is_number_float()) {
            if (!cli.is_number()) return fail(path, "CLI " + cli.dump() + ", torch " + torch.dump());
            ++numbers;
            const double a = cli.get<double>(), b = torch.get<double>();
            const double diff = std::abs(a - b);
            const double tolerance = kStageRelative * scale;
            double& worst = worst_by_stage()[stage];
            worst = std::max(worst, scale > 0.0 ? diff / scale : (diff > 0.0 ? INFINITY : 0.0));
            if (!(diff <= tolerance)) {
                std::ostringstream msg;
                msg.precision(9);
                msg << "CLI " << a << ", torch " << b << " (|diff| " << diff << ", stage scale " << scale << ", tolerance "
                    << tolerance << ")";
                fail(path, msg.str());
            }
        } else if (cli != torch) {  // strings, booleans, integers (token ids, sizes): exactly
            fail(path, "CLI " + cli.dump() + ", torch " + torch.dump());
        }
    }

private:
    // Keys the CLI may print that torch cannot know (none are printed without --time).
    static const std::set<std::string>& cli_only_keys() {
        static const std::set<std::string> keys = {"timing_us"};
        return keys;
    }

    void fail(const std::string& path, const std::string& what) { failures.push_back(path + ": " + what); }
};

// golden.json (the chapter 3 modules, make_golden.py) and modern_golden.json (today's
// variants, make_modern_golden.py): one list of configurations, each {name, args, expected}.
inline const nlohmann::json& golden() {
    static const nlohmann::json doc = [] {
        // ATTNSCOPE_GOLDEN_FILE: another file of the same form (e.g. a deliberately altered
        // copy, to see that a wrong number fails and is named), read alone.
        const char* other = std::getenv("ATTNSCOPE_GOLDEN_FILE");
        const std::string dir = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/";
        const std::vector<std::string> files =
            other ? std::vector<std::string>{other} : std::vector<std::string>{dir + "golden.json", dir + "modern_golden.json"};
        nlohmann::json all = {{"configs", nlohmann::json::array()}};
        for (const std::string& file : files) {
            std::ifstream in(file);
            if (!in) throw std::runtime_error("cannot open " + file + " (run tests/golden/make_golden.py, make_modern_golden.py)");
            nlohmann::json doc = nlohmann::json::parse(in);
            for (nlohmann::json& c : doc.at("configs")) all["configs"].push_back(std::move(c));
        }
        return all;
    }();
    return doc;
}

// What `attnscope-cli ARGS` prints, through the CLI's own path (parse_settings -> compute ->
// write_run_json).
inline nlohmann::json cli_json(const std::vector<std::string>& args) {
    const ParsedArgs parsed = parse_settings(args);
    if (!parsed.rest.empty()) throw std::runtime_error("unknown argument " + parsed.rest.front());
    const Run run = compute(parsed.settings);
    std::ostringstream out;
    write_run_json(out, run, {}, std::nullopt);
    return nlohmann::json::parse(out.str());
}

}  // namespace attn::test
