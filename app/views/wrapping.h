#pragma once
// Text that is never cut: wrapped at the right edge of what the window shows, not at
// the edge of its content. In the view pane, which scrolls sideways for wide heatmaps,
// Dear ImGui's TextWrapped wraps at the content's width, past the visible edge.
#include <string>
#include <vector>

#include "imgui.h"

namespace app {

// The visible right edge of the current window's content, in window-local cursor
// coordinates (what PushTextWrapPos takes).
float visible_right();
// `text` broken into lines no wider than `width` at its spaces (and newlines) only, so
// that a number ("5.96e-08", "1.00") is never split; a word wider than `width` keeps a
// line of its own.
std::vector<std::string> wrap_lines(const std::string& text, float width);
// `text` so wrapped at `wrap_x` (window-local, as PushTextWrapPos takes), one group.
void text_wrapped_at(const std::string& text, float wrap_x);
// printf-style text wrapped at visible_right().
void text_wrapped(const char* fmt, ...) IM_FMTARGS(1);
// The same in the theme's disabled (grey) colour.
void text_wrapped_disabled(const char* fmt, ...) IM_FMTARGS(1);
// The same in `color`.
void text_wrapped_colored(const ImVec4& color, const char* fmt, ...) IM_FMTARGS(2);
// SameLine() when an item `width` wide still fits before visible_right(); else the
// next item starts a new line (radio buttons at a large UI scale).
void same_line_if_fits(float width);
// The width of RadioButton(label) or Checkbox(label).
float radio_width(const char* label);

}  // namespace app
