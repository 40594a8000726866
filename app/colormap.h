#pragma once
// The colour maps, read from shaders/colormaps.txt: the one definition the shader,
// the legend, the cell text contrast and the tests all share.
#include <array>
#include <map>
#include <string>
#include <vector>

namespace app {

using Rgb = std::array<float, 3>;

struct ColorStop {
    float position;
    Rgb rgb;
};

class ColorMaps {
public:
    // Throws std::runtime_error naming the file and line when the table is malformed.
    static ColorMaps load(const std::string& path);

    const std::vector<ColorStop>& stops(const std::string& map) const;  // throws if absent
    // The colour the shader gives position t in [0, 1] of a map.
    Rgb at(const std::string& map, float t) const;

private:
    std::map<std::string, std::vector<ColorStop>> maps_;
};

// A colour theme: which map colours sequential values and which signed ones. The
// presenter's high-contrast and colour-blind-safe choices are themes.
struct ColorTheme {
    const char* name;        // for flags, the state file and sessions: "default", ...
    const char* label;       // for the menu
    const char* sequential;  // map names in colormaps.txt
    const char* diverging;
};
const std::vector<ColorTheme>& color_themes();
const ColorTheme* find_theme(const std::string& name);  // null when unknown

// Relative luminance, to pick black or white text over a cell.
float luminance(const Rgb& c);

}  // namespace app
