#pragma once
// Fonts from Debian's DejaVu and Droid Sans Fallback packages, rasterised at the UI
// scale itself (not a scaled bitmap), so text stays sharp on a projector at 3x. The
// atlas is rebuilt when the scale changes, which must happen between frames.
#include <string>

#include "imgui.h"

namespace app {

struct Fonts {
    ImFont* body = nullptr;     // controls and text
    ImFont* heading = nullptr;  // stage titles
    ImFont* small = nullptr;    // cell values and axis labels
};

class FontSet {
public:
    // Rebuilds the atlas and the style sizes for `scale` unless already built for it.
    // Throws std::runtime_error when a font file cannot be read.
    void ensure_scale(float scale);
    const Fonts& fonts() const { return fonts_; }
    float scale() const { return scale_; }

private:
    Fonts fonts_;
    float scale_ = 0.0f;
};

// Sizes at 1x, in pixels: large enough to read from the back of a room.
constexpr float kBodyPx = 19.0f;
constexpr float kHeadingPx = 21.0f;
constexpr float kSmallPx = 15.0f;

}  // namespace app
