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

using Rgba = std::array<float, 4>;  // sRGB components and alpha in [0, 1]

// The interface's own colours, stated once per theme. They are drawn over the light
// ImGui style (fonts.cpp: black text on a white window). The default theme keeps the
// colours the app always had; the colour-blind-safe theme takes Okabe-Ito hues (no
// pure red), and it keeps text at 4.5:1 on white, the high-contrast theme at 7:1
// (tests/test_ui_colors.cpp checks both).
struct UiColors {
    Rgba error;         // an error in text: a refused setting, a file that did not load
    Rgba busy;          // "computing…"
    Rgba hint;          // secondary text: ImGui's TextDisabled and the notes drawn with it
    Rgba hot_label;     // the label of the hovered row or column (matrices, head view)
    Rgba stage_frame;   // around the matrix of the selected head or a lesson step's stage
    Rgba lesson_frame;  // around a lesson step's cells and rows, drawn over a white halo
    Rgba chip_fill, chip_border, chip_id;  // a token chip; chip_id writes the id under it
    Rgba special_fill, special_border;     // a special token; the border colour writes its label
    Rgba unknown_fill, unknown_border;     // <|unk|>, likewise
    Rgba word_bracket;                     // under the chips of one word
};

// A colour theme: which map colours sequential values and which signed ones, and the
// interface's colours. The presenter's high-contrast and colour-blind-safe choices are
// themes.
struct ColorTheme {
    const char* name;        // for flags, the state file and sessions: "default", ...
    const char* label;       // for the menu
    const char* sequential;  // map names in colormaps.txt
    const char* diverging;
    UiColors ui;
};
const std::vector<ColorTheme>& color_themes();
const ColorTheme* find_theme(const std::string& name);  // null when unknown

// The theme the window is drawn with (the first, "default", until one is set); the app
// sets it every frame from the View menu's choice (app_panels.cpp).
const ColorTheme& current_theme();
void set_current_theme(const ColorTheme& theme);  // one of color_themes()
const UiColors& ui_colors();                       // current_theme().ui

// Relative luminance, to pick black or white text over a cell.
float luminance(const Rgb& c);

}  // namespace app
