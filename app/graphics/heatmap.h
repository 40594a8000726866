#pragma once
// Heatmaps as textures: a matrix is uploaded once as a GL_R32F texture (one texel per
// cell) and coloured by shaders/heatmap.frag into a texture of one texel per cell,
// which ImGui draws stretched to the heatmap's size; only a heatmap with masked cells
// gets a second pass at its on-screen size (heatmap_stripes.frag) for their stripes.
// Both rerun only when the values, the size or the colour scale change, so a frame
// costs one textured quad per heatmap however many cells it has, and a change costs a
// pass over its cells, not over its pixels.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "state/colormap.h"
#include "state/level_of_detail.h"
#include "graphics/gl.h"
#include "imgui.h"
#include "numerics/tensor.h"

namespace app {

enum class ColorMode { Sequential = 0, Diverging = 1, Mask = 2 };

struct ColorScale {
    ColorMode mode = ColorMode::Sequential;
    float lo = 0.0f;  // sequential: value at the map's start; diverging: -m
    float hi = 1.0f;  // sequential: value at the map's end;   diverging: +m
    bool operator==(const ColorScale& o) const { return mode == o.mode && lo == o.lo && hi == o.hi; }
};

// The shader program and the colour maps it is fed; one for the whole app.
class HeatmapPainter {
public:
    HeatmapPainter(const std::string& shaders_dir, ColorMaps maps);  // throws on shader errors
    ~HeatmapPainter();
    HeatmapPainter(const HeatmapPainter&) = delete;
    HeatmapPainter& operator=(const HeatmapPainter&) = delete;

    const ColorMaps& maps() const { return maps_; }
    // Switches the sequential and diverging maps; heatmaps repaint when it changes.
    void set_theme(const ColorTheme& theme);
    const ColorTheme& theme() const { return *theme_; }
    uint64_t theme_version() const { return theme_version_; }
    // The colour the shader gives a (finite) value: for legends and text contrast.
    Rgb color_of(const ColorScale& scale, float value) const;
    // values (cols x rows, GL_R32F) coloured into `fbo`'s cols x rows target; masked
    // cells get alpha 0.
    void paint_cells(GLuint values, int cols, int rows, const ColorScale& scale, GLuint fbo) const;
    // cell_colors (paint_cells' target) at width x height pixels into `fbo`'s target,
    // masked cells striped.
    void paint_stripes(GLuint cell_colors, int cols, int rows, GLuint fbo, int width, int height) const;

private:
    void draw_quad(GLuint program, GLuint texture, GLuint fbo, int width, int height) const;

    ColorMaps maps_;
    const ColorTheme* theme_ = &color_themes().front();
    uint64_t theme_version_ = 0;
    GLuint cells_program_ = 0, stripes_program_ = 0;
    GLuint vao_ = 0;
};

// A texture drawn into through a framebuffer, re-specified when its size changes.
struct RenderTarget {
    GLuint texture = 0, fbo = 0;
    int width = 0, height = 0;
    ~RenderTarget();
    // True when it was (re)created: what it held is gone.
    bool resize(int w, int h);
};

class Heatmap {
public:
    Heatmap() = default;
    ~Heatmap();
    Heatmap(const Heatmap&) = delete;
    Heatmap& operator=(const Heatmap&) = delete;

    // Uploads m unless `version` and `max_texels` are those already uploaded: at most
    // max_texels a side (and the GL limit), as block means past it (level_of_detail.h).
    // Cells where `masked_by` is 1 are uploaded as -inf so that they are drawn as masked.
    void set_values(const attn::Matrix& m, uint64_t version, const attn::Matrix* masked_by = nullptr,
                    int max_texels = kMaxHeatmapTexels);
    // Draws it as an ImGui image of `size` pixels at the cursor (an item, as
    // ImGui::Image), repainted only when needed; with grid_px > 0, white gaps of that
    // width between cells (at each cell's top and left).
    void draw(const HeatmapPainter& painter, ImVec2 size, const ColorScale& scale, float grid_px);

private:
    ImTextureID texture(const HeatmapPainter& painter, int width, int height, const ColorScale& scale);

    GLuint values_ = 0;
    int cols_ = 0, rows_ = 0;
    bool any_minus_inf_ = false, any_over_half_ = false;  // masked cells, as heatmap.frag tells them
    uint64_t version_ = UINT64_MAX;
    int max_texels_ = 0;
    RenderTarget cells_, pixels_;  // one texel per cell; the on-screen size, for stripes
    bool cells_painted_ = false, pixels_painted_ = false;
    ColorScale scale_;
    uint64_t theme_version_ = 0;
};

// The heatmaps on screen, by what they show (e.g. "head 2/weights"). Those not drawn
// in a frame are dropped at its end, which frees their GL memory.
class HeatmapCache {
public:
    Heatmap& get(const std::string& key);
    void end_frame();

private:
    struct Entry {
        std::unique_ptr<Heatmap> heatmap;
        bool used = true;
    };
    std::unordered_map<std::string, Entry> entries_;
};

}  // namespace app
