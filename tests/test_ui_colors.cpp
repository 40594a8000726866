// The interface colours each theme states (app/state/colormap.h UiColors): the default keeps
// the app's old colours, the colour-blind-safe and high-contrast themes keep text
// readable on the white window, and the colour-blind error is no pure red.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "state/colormap.h"

namespace {

using Matrix3 = std::array<std::array<double, 3>, 3>;

double linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double encoded(double c) {
    c = std::clamp(c, 0.0, 1.0);
    return c <= 0.0031308 ? c * 12.92 : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
}

// WCAG 2 relative luminance and contrast ratio.
double luminance(const app::Rgba& c) {
    return 0.2126 * linear(c[0]) + 0.7152 * linear(c[1]) + 0.0722 * linear(c[2]);
}
double contrast(const app::Rgba& a, const app::Rgba& b) {
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// Dichromat vision, severity 1 (Machado, Oliveira and Fernandes 2009), on linear RGB.
const Matrix3 kProtanopia = {{{0.152286, 1.052583, -0.204868},
                              {0.114503, 0.786281, 0.099216},
                              {-0.003882, -0.048116, 1.051998}}};
const Matrix3 kDeuteranopia = {{{0.367322, 0.860646, -0.227968},
                                {0.280085, 0.672501, 0.047413},
                                {-0.011820, 0.042940, 0.968881}}};
const Matrix3 kTritanopia = {{{1.255528, -0.076749, -0.178779},
                              {-0.078411, 0.930809, 0.147602},
                              {0.004733, 0.691367, 0.303900}}};

app::Rgba seen_with(const Matrix3& m, const app::Rgba& c) {
    app::Rgba out{0, 0, 0, c[3]};
    for (int i = 0; i < 3; ++i) {
        double v = 0;
        for (int j = 0; j < 3; ++j) v += m[i][j] * linear(c[j]);
        out[i] = static_cast<float>(encoded(v));
    }
    return out;
}

const app::Rgba kWhite = {1, 1, 1, 1};  // the window (fonts.cpp: apply_style)
const app::Rgba kBlack = {0, 0, 0, 1};  // its text

const app::ColorTheme& theme(const std::string& name) {
    const app::ColorTheme* t = app::find_theme(name);
    REQUIRE(t);
    return *t;
}

// Text on white and labels on their chips reach `text_ratio`; frames and borders, the
// 3:1 WCAG asks of graphics.
void check_readable(const app::UiColors& ui, double text_ratio) {
    CHECK(contrast(ui.error, kWhite) >= text_ratio);
    CHECK(contrast(ui.busy, kWhite) >= text_ratio);
    CHECK(contrast(ui.hint, kWhite) >= text_ratio);
    CHECK(contrast(ui.hot_label, kWhite) >= text_ratio);
    CHECK(contrast(ui.chip_id, ui.chip_fill) >= text_ratio);
    CHECK(contrast(ui.special_border, ui.special_fill) >= text_ratio);
    CHECK(contrast(ui.unknown_border, ui.unknown_fill) >= text_ratio);
    CHECK(contrast(kBlack, ui.chip_fill) >= text_ratio);  // the token itself
    CHECK(contrast(kBlack, ui.special_fill) >= text_ratio);
    CHECK(contrast(kBlack, ui.unknown_fill) >= text_ratio);
    CHECK(contrast(ui.stage_frame, kWhite) >= 3.0);
    CHECK(contrast(ui.lesson_frame, kWhite) >= 3.0);  // drawn in a white halo
    CHECK(contrast(ui.chip_border, kWhite) >= 3.0);
    CHECK(contrast(ui.word_bracket, kWhite) >= 3.0);
}

}  // namespace

TEST_CASE("the default theme keeps the colours the app always drew", "[ui-colors]") {
    const app::UiColors& ui = theme("default").ui;
    CHECK(ui.error == app::Rgba{0.8f, 0.0f, 0.0f, 1.0f});
    CHECK(ui.busy == app::Rgba{0.1f, 0.3f, 0.8f, 1.0f});
    CHECK(ui.hint == app::Rgba{0.6f, 0.6f, 0.6f, 1.0f});  // ImGui 1.86 StyleColorsLight's TextDisabled
    // app_tokenizers.test.sh finds the <|unk|> chip by this fill in a screenshot.
    CHECK(std::lround(ui.unknown_fill[0] * 255) == 255);
    CHECK(std::lround(ui.unknown_fill[1] * 255) == 170);
    CHECK(std::lround(ui.unknown_fill[2] * 255) == 170);
    CHECK(app::color_themes().front().name == std::string("default"));
}

TEST_CASE("the colour-blind-safe theme keeps text at 4.5:1 on white", "[ui-colors]") {
    check_readable(theme("colorblind").ui, 4.5);
}

TEST_CASE("the high-contrast theme keeps text at 7:1 on white", "[ui-colors]") {
    check_readable(theme("high-contrast").ui, 7.0);
}

TEST_CASE("the colour-blind error stands out from black text for every dichromat", "[ui-colors]") {
    const app::UiColors& cb = theme("colorblind").ui;
    const app::UiColors& plain = theme("default").ui;
    for (const Matrix3* m : {&kProtanopia, &kDeuteranopia, &kTritanopia}) {
        INFO("simulation " << (m == &kProtanopia ? "protanopia" : m == &kDeuteranopia ? "deuteranopia" : "tritanopia"));
        CHECK(contrast(seen_with(*m, cb.error), kBlack) >= 3.5);
        CHECK(contrast(seen_with(*m, cb.hot_label), kBlack) >= 3.5);
        CHECK(contrast(seen_with(*m, cb.error), kWhite) >= 4.0);
    }
    // What the theme is for: the default's red reads as near-black to a protanope.
    CHECK(contrast(seen_with(kProtanopia, plain.error), kBlack) < 2.5);
    CHECK(cb.error != plain.error);
}

TEST_CASE("ui_colors() are the current theme's, the default until one is set", "[ui-colors]") {
    CHECK(&app::current_theme() == &app::color_themes().front());
    CHECK(&app::ui_colors() == &theme("default").ui);
    app::set_current_theme(theme("colorblind"));
    CHECK(app::ui_colors().error == theme("colorblind").ui.error);
    app::set_current_theme(theme("default"));
    CHECK(&app::ui_colors() == &theme("default").ui);
}
