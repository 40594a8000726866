#include "graphics/fonts.h"

#include <fstream>
#include <stdexcept>

#include "backends/imgui_impl_opengl3.h"
#include "graphics/gl.h"

namespace app {

namespace {

// Latin, Greek (softmax, sigma), subscript digits (q₂·k₃), arrows, the math the
// headings use (√, Σ, ∞, ·, ×), the transpose mark ᵀ and the check marks ✓ ✗.
const ImWchar kGlyphRanges[] = {
    0x0020, 0x017F,  // Basic Latin, Latin-1, Latin Extended-A
    0x0370, 0x03FF,  // Greek
    0x1D40, 0x1D40,  // ᵀ
    0x2010, 0x2027,  // dashes, bullets, ellipsis
    0x2070, 0x209F,  // superscripts and subscripts
    0x20A0, 0x20CF,  // currency (€)
    0x2190, 0x21FF,  // arrows
    0x2200, 0x22FF,  // mathematical operators
    0x2400, 0x2426,  // control pictures: ␣ for a token's space
    0x25A0, 0x25FF,  // geometric shapes
    0x2713, 0x2717,  // ✓ ✗: a checked stage matches or differs
    0,
};

// DejaVu has no CJK glyphs; they come from Droid Sans Fallback, merged into the fonts
// that show tokens (body: chips, small: axis labels), not headings. Dear ImGui 1.86
// bakes every glyph up front, so only the ~2500 common Chinese characters (plus kana,
// CJK punctuation and full-width forms) are baked, without oversampling, which keeps
// the atlas at 3x near 4096 x 4096.
// Both come from Debian's packages (fonts-droid-fallback, fonts-dejavu-core), not copies.
const char* const kCjkFont = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf";
const char* const kDejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const char* const kDejaVuBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

std::runtime_error missing_font(const std::string& path) {
    const char* package = path == kCjkFont ? "fonts-droid-fallback" : "fonts-dejavu-core";
    return std::runtime_error("cannot read the font " + path + ": install Debian's package " + package);
}

void merge_cjk(const std::string& path, float px) {
    ImFontConfig config;
    config.MergeMode = true;
    config.OversampleH = 1;
    config.OversampleV = 1;
    config.PixelSnapH = true;
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    if (!atlas->AddFontFromFileTTF(path.c_str(), px, &config, atlas->GetGlyphRangesChineseSimplifiedCommon()))
        throw std::runtime_error("cannot load font " + path);
}

// `cjk_path` empty: no CJK glyphs.
ImFont* add_font(const std::string& path, const std::string& cjk_path, float px) {
    if (!std::ifstream(path)) throw missing_font(path);
    ImFontConfig config;
    config.OversampleH = 2;
    config.OversampleV = 1;
    ImFont* font = ImGui::GetIO().Fonts->AddFontFromFileTTF(path.c_str(), px, &config, kGlyphRanges);
    if (!font) throw std::runtime_error("cannot load font " + path);
    if (cjk_path.empty()) return font;
    if (!std::ifstream(cjk_path)) throw missing_font(cjk_path);
    merge_cjk(cjk_path, px);
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
    fonts_.body = add_font(kDejaVu, kCjkFont, kBodyPx * scale);
    fonts_.heading = add_font(kDejaVuBold, "", kHeadingPx * scale);
    fonts_.small = add_font(kDejaVu, kCjkFont, kSmallPx * scale);
    atlas->Flags |= ImFontAtlasFlags_NoPowerOfTwoHeight;  // up to half the texture would be padding
    atlas->Build();
    finish_pending_drawing();  // the last frame drew from the old texture
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    atlas->ClearTexData();  // the pixels live in the GL texture now: free the CPU copies
    apply_style(scale);
    scale_ = scale;
}

}  // namespace app
