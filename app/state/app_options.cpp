#include "state/app_options.h"
#include "state/view_state.h"

#include <cstdlib>

#include "state/colormap.h"
#include "run/comparisons.h"
#include "settings/flag_reader.h"

namespace app {

namespace {

int parse_int(const std::string& flag, const std::string& text, int lo, int hi) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end || v < lo || v > hi)
        throw OptionsError(flag + " needs a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                           ", got '" + text + "'");
    return static_cast<int>(v);
}

float parse_float(const std::string& flag, const std::string& text, float lo, float hi) {
    char* end = nullptr;
    const float v = std::strtof(text.c_str(), &end);
    if (text.empty() || *end || !(v >= lo && v <= hi))
        throw OptionsError(flag + " needs a number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                           ", got '" + text + "'");
    return v;
}

// "masking|dropout|...": a list of names (the comparisons', the tabs').
std::string name_list(const std::vector<std::string>& names, const char* separator) {
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "" : separator) + name;
    return out;
}

}  // namespace

std::string app_usage() {
    return "usage: attnscope [settings, as attnscope-cli takes them] [--screenshot FILE.png] [--frames N] [--state-out FILE.json]\n"
           "  [--ui-scale 1..3] [--head N] [--show-stage NAME] [--size WxH] [--bench-frames N] [--bench-changes N]\n"
           "  [--bench-change seed|dropout] [--lesson ID [--lesson-step N]] [--lesson-tour DIR] [--presenter]\n"
           "  [--colormap default|colorblind|high-contrast] [--compare " + name_list(attn::comparison_names(), "|") + "]\n"
           "  [--tab " + name_list(view_tab_names(), "|") + "]\n"
           "  [--session FILE] [--check RECORD] [--export-all DIR] [--save-py FILE] [--save-session FILE]\n"
           "  [--revision REV: with --model ORG/NAME, that branch, tag or commit, downloaded from the Hub if need be]\n";
}

AppOptions parse_app_options(const std::vector<std::string>& rest) {
    AppOptions o;
    for (attn::FlagReader flags(rest); flags.next();) {
        const std::string& flag = flags.flag();
        if (flag == "--screenshot") o.screenshot = flags.value();
        else if (flag == "--frames") o.frames = parse_int(flag, flags.value(), 1, 100000);
        else if (flag == "--state-out") o.state_out = flags.value();
        else if (flag == "--ui-scale") o.ui_scale = parse_float(flag, flags.value(), 1.0f, 3.0f);
        else if (flag == "--show-stage") o.show_stage = flags.value();
        else if (flag == "--bench-frames") o.bench_frames = parse_int(flag, flags.value(), 1, 100000);
        else if (flag == "--bench-changes") o.bench_changes = parse_int(flag, flags.value(), 1, 10000);
        else if (flag == "--bench-change") {
            o.bench_change = flags.value();
            if (o.bench_change != "seed" && o.bench_change != "dropout")
                throw OptionsError("--bench-change takes seed or dropout, got '" + o.bench_change + "'");
        }
        else if (flag == "--size") {
            const std::string& v = flags.value();
            const size_t x = v.find('x');
            if (x == std::string::npos) throw OptionsError("--size needs WxH, got '" + v + "'");
            o.width = parse_int(flag, v.substr(0, x), 320, 8192);
            o.height = parse_int(flag, v.substr(x + 1), 240, 8192);
        }
        else if (flag == "--lesson") o.lesson = flags.value();
        else if (flag == "--lesson-step") o.lesson_step = parse_int(flag, flags.value(), 1, 1000) - 1;
        else if (flag == "--lesson-tour") o.lesson_tour = flags.value();
        else if (flag == "--presenter") o.presenter = true;
        else if (flag == "--colormap") {
            o.colormap = flags.value();
            if (!find_theme(o.colormap))
                throw OptionsError("--colormap takes default, colorblind or high-contrast, got '" + o.colormap + "'");
        }
        else if (flag == "--compare") {
            o.compare = flags.value();
            if (!attn::comparison_from_name(o.compare))
                throw OptionsError("--compare takes " + name_list(attn::comparison_names(), ", ") + ", got '" + o.compare + "'");
        }
        else if (flag == "--tab") {
            o.tab = flags.value();
            if (!view_tab_from_name(o.tab))
                throw OptionsError("--tab takes " + name_list(view_tab_names(), ", ") + ", got '" + o.tab + "'");
        }
        else if (flag == "--session") o.session = flags.value();
        else if (flag == "--check") o.check = flags.value();
        else if (flag == "--revision") o.revision = flags.value();
        else if (flag == "--export-all") o.export_all = flags.value();
        else if (flag == "--save-py") o.save_py = flags.value();
        else if (flag == "--save-session") o.save_session = flags.value();
        else throw OptionsError("unknown option '" + flag + "'");
    }
    return o;
}

}  // namespace app
