#include "colormap.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "file_io.h"

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

const std::vector<ColorTheme>& color_themes() {
    static const std::vector<ColorTheme> themes = {
        {"default", "viridis / red-blue", "sequential", "diverging"},
        {"colorblind", "colour-blind safe (cividis / blue-orange)", "cividis", "blue_orange"},
        {"high-contrast", "high contrast (inferno / strong red-blue)", "inferno", "strong_diverging"},
    };
    return themes;
}

const ColorTheme* find_theme(const std::string& name) {
    for (const ColorTheme& t : color_themes())
        if (name == t.name) return &t;
    return nullptr;
}

float luminance(const Rgb& c) { return 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2]; }

}  // namespace app
