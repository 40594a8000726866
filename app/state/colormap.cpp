#include "state/colormap.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "base/file_io.h"

namespace app {

ColorMaps ColorMaps::load(const std::string& path) {
    std::istringstream in;
    try {
        in.str(attn::read_file_capped(path, 1 << 20, "a colour map file"));
    } catch (const attn::FileError& e) {
        throw std::runtime_error(std::string("cannot read the colour maps ") + e.what());
    }
    ColorMaps maps;
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_no;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string name;
        ColorStop stop{};
        if (!(fields >> name >> stop.position >> stop.rgb[0] >> stop.rgb[1] >> stop.rgb[2]))
            throw std::runtime_error(path + ":" + std::to_string(line_no) + ": expected 'map position r g b'");
        maps.maps_[name].push_back(stop);
    }
    std::vector<std::string> needed = {"masked", "kept"};
    for (const ColorTheme& t : color_themes()) needed.insert(needed.end(), {t.sequential, t.diverging});
    for (const std::string& name : needed)
        if (!maps.maps_.count(name)) throw std::runtime_error(path + " has no '" + name + "' map");
    return maps;
}

const std::vector<ColorStop>& ColorMaps::stops(const std::string& map) const {
    const auto it = maps_.find(map);
    if (it == maps_.end()) throw std::runtime_error("no colour map named " + map);
    return it->second;
}

Rgb ColorMaps::at(const std::string& map, float t) const {
    const std::vector<ColorStop>& s = stops(map);
    t = std::clamp(t, 0.0f, 1.0f);
    for (size_t i = 0; i + 1 < s.size(); ++i) {
        if (t <= s[i + 1].position) {
            const float f = (t - s[i].position) / (s[i + 1].position - s[i].position);
            Rgb c;
            for (int k = 0; k < 3; ++k) c[k] = s[i].rgb[k] + (s[i + 1].rgb[k] - s[i].rgb[k]) * f;
            return c;
        }
    }
    return s.back().rgb;
}

namespace {

constexpr Rgba rgb(float r, float g, float b) { return {r, g, b, 1.0f}; }
constexpr Rgba rgb8(int r, int g, int b) { return {r / 255.0f, g / 255.0f, b / 255.0f, 1.0f}; }

// What the app drew before themes had interface colours: its screenshots stay the same.
// (The tests look for the chip fills in screenshots.)
constexpr UiColors kDefaultUi = {
    rgb(0.8f, 0.0f, 0.0f),      // error
    rgb(0.1f, 0.3f, 0.8f),      // busy
    rgb(0.6f, 0.6f, 0.6f),      // hint: ImGui::StyleColorsLight's TextDisabled
    rgb8(200, 30, 30),          // hot_label
    rgb8(220, 40, 40),          // stage_frame
    rgb8(230, 0, 170),          // lesson_frame: magenta
    rgb8(225, 235, 250), rgb8(70, 90, 140), rgb8(50, 50, 100),  // chip fill, border, id
    rgb8(255, 208, 100), rgb8(150, 95, 0),                      // special
    rgb8(255, 170, 170), rgb8(170, 30, 30),                     // unknown
    rgb8(40, 60, 130),                                          // word bracket
};

// Okabe-Ito hues, none of them pure red, which protanopes see close to black: for an
// error, vermillion (213, 94, 0) at 90% brightness, 4.6:1 on white and at least 3.6:1
// from black text under simulated protanopia, deuteranopia and tritanopia. The lesson
// frame is black in its white halo: no map of this theme (cividis, blue-orange) comes
// near black, whatever the colour vision.
constexpr UiColors kColorblindUi = {
    rgb8(192, 85, 0),           // error: dark vermillion
    rgb8(0, 114, 178),          // busy: Okabe-Ito blue, 5.2:1
    rgb(0.4f, 0.4f, 0.4f),      // hint: 5.7:1
    rgb8(192, 85, 0),           // hot_label
    rgb8(213, 94, 0),           // stage_frame: vermillion
    rgb8(0, 0, 0),              // lesson_frame
    rgb8(225, 235, 250), rgb8(70, 90, 140), rgb8(50, 50, 100),  // chip fill, border, id
    rgb8(240, 228, 66), rgb8(110, 90, 0),                       // special: Okabe-Ito yellow
    rgb8(230, 160, 130), rgb8(105, 40, 0),                      // unknown: light vermillion
    rgb8(40, 60, 130),                                          // word bracket
};

// For projectors, which wash colours out: the default's hues, darker, text at 7:1.
constexpr UiColors kHighContrastUi = {
    rgb(0.7f, 0.0f, 0.0f),      // error: 7.2:1
    rgb(0.0f, 0.2f, 0.6f),      // busy
    rgb(0.3f, 0.3f, 0.3f),      // hint: 8.5:1
    rgb(0.7f, 0.0f, 0.0f),      // hot_label
    rgb(0.7f, 0.0f, 0.0f),      // stage_frame
    rgb8(230, 0, 170),          // lesson_frame: magenta, which inferno's purples do not reach
    rgb8(225, 235, 250), rgb8(40, 55, 110), rgb8(20, 20, 70),  // chip fill, border, id
    rgb8(255, 208, 100), rgb8(90, 55, 0),                      // special
    rgb8(255, 170, 170), rgb8(100, 0, 0),                      // unknown
    rgb8(20, 40, 110),                                         // word bracket
};

const ColorTheme* g_current = nullptr;  // the window's, set by the UI thread

}  // namespace

const std::vector<ColorTheme>& color_themes() {
    static const std::vector<ColorTheme> themes = {
        {"default", "viridis / red-blue", "sequential", "diverging", kDefaultUi},
        {"colorblind", "colour-blind safe (cividis / blue-orange)", "cividis", "blue_orange", kColorblindUi},
        {"high-contrast", "high contrast (inferno / strong red-blue)", "inferno", "strong_diverging", kHighContrastUi},
    };
    return themes;
}

const ColorTheme* find_theme(const std::string& name) {
    for (const ColorTheme& t : color_themes())
        if (name == t.name) return &t;
    return nullptr;
}

const ColorTheme& current_theme() { return g_current ? *g_current : color_themes().front(); }
void set_current_theme(const ColorTheme& theme) { g_current = &theme; }
const UiColors& ui_colors() { return current_theme().ui; }

float luminance(const Rgb& c) { return 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2]; }

}  // namespace app
