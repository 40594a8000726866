#include "fonts.h"

#include <fstream>
#include <stdexcept>

#include "backends/imgui_impl_opengl3.h"

namespace app {

namespace {

// Latin, Greek (softmax, sigma), subscript digits (q₂·k₃), arrows, the math the
// headings use (√, Σ, ∞, ·, ×) and the transpose mark ᵀ.
const ImWchar kGlyphRanges[] = {
    0x0020, 0x017F,  // Basic Latin, Latin-1, Latin Extended-A
    0x0370, 0x03FF,  // Greek
    0x1D40, 0x1D40,  // ᵀ
    0x2010, 0x2027,  // dashes, bullets, ellipsis
    0x2070, 0x209F,  // superscripts and subscripts
    0x20A0, 0x20CF,  // currency (€)
    0x2190, 0x21FF,  // arrows
    0x2200, 0x22FF,  // mathematical operators
    0x25A0, 0x25FF,  // geometric shapes
    0,
};

ImFont* add_font(const std::string& path, float px) {
    if (!std::ifstream(path)) throw std::runtime_error("cannot read font " + path);
    ImFontConfig config;
    config.OversampleH = 2;
    config.OversampleV = 1;
    ImFont* font = ImGui::GetIO().Fonts->AddFontFromFileTTF(path.c_str(), px, &config, kGlyphRanges);
    if (!font) throw std::runtime_error("cannot load font " + path);
    return font;
}

void apply_style(float scale) {
    ImGuiStyle style;
    ImGui::StyleColorsLight(&style);
    // High contrast for projectors: black text on white, visible frames.
    ImVec4* c = style.Colors;
    c[ImGuiCol_Text] = ImVec4(0.0f, 0.0f, 0.0f, 1.0f);
    c[ImGuiCol_WindowBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
    // Panels are not painted: the cleared framebuffer is their white. Software GL
    // (llvmpipe) is fill-bound, and each full-window layer costs milliseconds.
    c[ImGuiCol_ChildBg] = ImVec4(1.0f, 1.0f, 1.0f, 0.0f);
    c[ImGuiCol_FrameBg] = ImVec4(0.92f, 0.92f, 0.94f, 1.0f);
    c[ImGuiCol_Border] = ImVec4(0.45f, 0.45f, 0.50f, 1.0f);
    style.FrameBorderSize = 1.0f;
    style.FrameRounding = 3.0f;
    style.GrabMinSize = 14.0f;
    style.ItemSpacing = ImVec2(10.0f, 8.0f);
    style.WindowPadding = ImVec2(12.0f, 10.0f);
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;
}

}  // namespace

void FontSet::ensure_scale(float scale) {
    if (scale == scale_) return;
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    atlas->Clear();
    fonts_.body = add_font(dir_ + "/DejaVuSans.ttf", kBodyPx * scale);
    fonts_.heading = add_font(dir_ + "/DejaVuSans-Bold.ttf", kHeadingPx * scale);
    fonts_.small = add_font(dir_ + "/DejaVuSans.ttf", kSmallPx * scale);
    atlas->Build();
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    apply_style(scale);
    scale_ = scale;
}

}  // namespace app
