#include "graphics/heatmap.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "base/file_io.h"
#include "state/level_of_detail.h"

namespace app {

namespace {

std::string read_file(const std::string& path) {
    try {
        return attn::read_file_capped(path, 1 << 20, "a shader");
    } catch (const attn::FileError& e) {
        throw std::runtime_error(std::string("cannot read shader ") + e.what());
    }
}

// The shaders are written for GLSL 3.30 core (the files' first line) and are also valid
// GLSL ES 3.00: the platform's header replaces that line.
GLuint compile(GLenum type, const std::string& path) {
    std::string source = read_file(path);
    const size_t first_line = source.find('\n');
    if (source.rfind("#version", 0) != 0 || first_line == std::string::npos)
        throw std::runtime_error(path + ": the first line must be its #version");
    source = kGlslHeader + source.substr(first_line + 1);
    const char* text = source.c_str();
    const GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        glDeleteShader(shader);
        throw std::runtime_error(path + ": " + log);
    }
    return shader;
}

void set_stops(GLuint program, const std::string& name, const std::vector<ColorStop>& stops) {
    constexpr size_t kMaxStops = 16;  // MAX_STOPS in heatmap.frag
    if (stops.size() > kMaxStops) throw std::runtime_error("colour map " + name + " has more than 16 stops");
    std::vector<float> rgb, pos;
    for (const ColorStop& s : stops) {
        rgb.insert(rgb.end(), s.rgb.begin(), s.rgb.end());
        pos.push_back(s.position);
    }
    const auto n = static_cast<GLsizei>(stops.size());
    glUniform3fv(glGetUniformLocation(program, ("u_" + name).c_str()), n, rgb.data());
    glUniform1fv(glGetUniformLocation(program, ("u_" + name + "_pos").c_str()), n, pos.data());
    glUniform1i(glGetUniformLocation(program, ("u_" + name + "_count").c_str()), n);
}

void set_color(GLuint program, const char* uniform, const Rgb& c) {
    glUniform3f(glGetUniformLocation(program, uniform), c[0], c[1], c[2]);
}

GLuint link(const std::string& vertex_path, const std::string& fragment_path) {
    const GLuint vs = compile(GL_VERTEX_SHADER, vertex_path);
    const GLuint fs = compile(GL_FRAGMENT_SHADER, fragment_path);
    const GLuint program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetProgramInfoLog(program, sizeof log, nullptr, log);
        glDeleteProgram(program);
        throw std::runtime_error(fragment_path + ": " + log);
    }
    return program;
}

}  // namespace

HeatmapPainter::HeatmapPainter(const std::string& shaders_dir, ColorMaps maps) : maps_(std::move(maps)) {
    cells_program_ = link(shaders_dir + "/heatmap.vert", shaders_dir + "/heatmap.frag");
    try {
        stripes_program_ = link(shaders_dir + "/heatmap.vert", shaders_dir + "/heatmap_stripes.frag");
    } catch (...) {
        glDeleteProgram(cells_program_);
        throw;
    }
    glGenVertexArrays(1, &vao_);  // the quad comes from gl_VertexID; core profile still needs a VAO

    // The colour maps never change while the app runs: set them once.
    glUseProgram(cells_program_);
    glUniform1i(glGetUniformLocation(cells_program_, "u_values"), 0);
    set_color(cells_program_, "u_kept", maps_.stops("kept").front().rgb);
    glUseProgram(stripes_program_);
    glUniform1i(glGetUniformLocation(stripes_program_, "u_cell_colors"), 0);
    set_color(stripes_program_, "u_masked_bg", maps_.stops("masked").front().rgb);
    set_color(stripes_program_, "u_masked_stripe", maps_.stops("masked").back().rgb);
    glUseProgram(0);
    set_theme(*theme_);
}

void HeatmapPainter::set_theme(const ColorTheme& theme) {
    glUseProgram(cells_program_);
    set_stops(cells_program_, "seq", maps_.stops(theme.sequential));
    set_stops(cells_program_, "div", maps_.stops(theme.diverging));
    glUseProgram(0);
    if (&theme != theme_) ++theme_version_;
    theme_ = &theme;
}

HeatmapPainter::~HeatmapPainter() {
    glDeleteVertexArrays(1, &vao_);
    glDeleteProgram(cells_program_);
    glDeleteProgram(stripes_program_);
}

Rgb HeatmapPainter::color_of(const ColorScale& scale, float v) const {
    switch (scale.mode) {
    case ColorMode::Mask:
        return v > 0.5f ? maps_.stops("masked").front().rgb : maps_.stops("kept").front().rgb;
    case ColorMode::Diverging: {
        const float m = std::max(std::abs(scale.lo), std::abs(scale.hi));
        return maps_.at(theme_->diverging, m > 0.0f ? 0.5f + 0.5f * v / m : 0.5f);
    }
    case ColorMode::Sequential:
        break;
    }
    return maps_.at(theme_->sequential, scale.hi > scale.lo ? (v - scale.lo) / (scale.hi - scale.lo) : 0.0f);
}

void HeatmapPainter::paint_cells(GLuint values, int cols, int rows, const ColorScale& scale, GLuint fbo) const {
    glUseProgram(cells_program_);
    glUniform1i(glGetUniformLocation(cells_program_, "u_mode"), static_cast<int>(scale.mode));
    glUniform1f(glGetUniformLocation(cells_program_, "u_lo"), scale.lo);
    glUniform1f(glGetUniformLocation(cells_program_, "u_hi"), scale.hi);
    draw_quad(cells_program_, values, fbo, cols, rows);
}

void HeatmapPainter::paint_stripes(GLuint cell_colors, int cols, int rows, GLuint fbo, int width, int height) const {
    glUseProgram(stripes_program_);
    glUniform2i(glGetUniformLocation(stripes_program_, "u_cells"), cols, rows);
    draw_quad(stripes_program_, cell_colors, fbo, width, height);
}

// One quad over fbo's width x height target, `program` (in use) reading `texture`.
void HeatmapPainter::draw_quad(GLuint program, GLuint texture, GLuint fbo, int width, int height) const {
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, width, height);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glUseProgram(program);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, texture);
    glBindVertexArray(vao_);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindVertexArray(0);
    glUseProgram(0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);  // ImGui's renderer sets its own viewport and state
}

RenderTarget::~RenderTarget() {
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &texture);
}

bool RenderTarget::resize(int w, int h) {
    if (texture && w == width && h == height) return false;
    if (texture) finish_pending_drawing();  // its old storage is freed (gl.h)
    if (!texture) {
        glGenTextures(1, &texture);
        glGenFramebuffers(1, &fbo);
    }
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    // Stretched over an image whose edge falls between pixels, the last row's or column's
    // samples can land just past 1: the edge cell, not the first (GL's default, REPEAT).
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    width = w;
    height = h;
    return true;
}

Heatmap::~Heatmap() { glDeleteTextures(1, &values_); }

void Heatmap::set_values(const attn::Matrix& m, uint64_t version, const attn::Matrix* masked_by, int max_texels) {
    if (version == version_ && max_texels == max_texels_) return;
    version_ = version;
    max_texels_ = max_texels;
    cells_painted_ = pixels_painted_ = false;
    // GL's limit on a texture's side (8192 or 16384 on most drivers) bounds the caller's.
    static const int gl_max = [] {
        GLint side = 0;
        glGetIntegerv(GL_MAX_TEXTURE_SIZE, &side);
        return std::max(1, static_cast<int>(side));
    }();
    const TexelGrid grid = texels_for(m, masked_by, std::min(max_texels, gl_max));
    const float* data = grid.texels.empty() ? m.data() : grid.texels.data();
    const bool same_size = values_ && cols_ == grid.cols && rows_ == grid.rows;
    if (values_ && !same_size) finish_pending_drawing();  // its old storage is freed (gl.h)
    cols_ = grid.cols;
    rows_ = grid.rows;
    const float* end = data + static_cast<size_t>(cols_) * rows_;
    any_minus_inf_ = std::any_of(data, end, [](float v) { return std::isinf(v) && v < 0.0f; });
    any_over_half_ = std::any_of(data, end, [](float v) { return v > 0.5f; });
    if (!values_) {
        glGenTextures(1, &values_);
        glBindTexture(GL_TEXTURE_2D, values_);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }
    glBindTexture(GL_TEXTURE_2D, values_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    // A new run of the same shape (a seed or dropout change) refills the texture in
    // place rather than reallocating it.
    if (same_size) glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, cols_, rows_, GL_RED, GL_FLOAT, data);
    else glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, cols_, rows_, 0, GL_RED, GL_FLOAT, data);
}

ImTextureID Heatmap::texture(const HeatmapPainter& painter, int width, int height, const ColorScale& scale) {
    if (cells_.resize(cols_, rows_)) cells_painted_ = false;
    if (!cells_painted_ || !(scale == scale_) || painter.theme_version() != theme_version_) {
        painter.paint_cells(values_, cols_, rows_, scale, cells_.fbo);
        scale_ = scale;
        theme_version_ = painter.theme_version();
        cells_painted_ = true;
        pixels_painted_ = false;
    }
    const bool striped = scale.mode == ColorMode::Mask ? any_over_half_ : any_minus_inf_;
    if (!striped) return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(cells_.texture));
    if (pixels_.resize(width, height) || !pixels_painted_) {
        painter.paint_stripes(cells_.texture, cols_, rows_, pixels_.fbo, width, height);
        pixels_painted_ = true;
    }
    return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(pixels_.texture));
}

void Heatmap::draw(const HeatmapPainter& painter, ImVec2 size, const ColorScale& scale, float grid_px) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImTextureID tex = texture(painter, std::max(1, static_cast<int>(size.x)), std::max(1, static_cast<int>(size.y)), scale);
    // Heatmaps are opaque: drawing them without blending saves software GL a
    // read-modify-write of every pixel they cover.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddCallback([](const ImDrawList*, const ImDrawCmd*) { glDisable(GL_BLEND); }, nullptr);
    ImGui::Image(tex, size);
    dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
    if (grid_px <= 0.0f) return;
    // The pixels whose centres lie within grid_px of a cell's start, as rectangles (a
    // rectangle covers the pixels whose centres it holds).
    const auto gap = [grid_px](float start) {
        return std::make_pair(std::ceil(start - 0.5f), std::ceil(start + grid_px - 0.5f));
    };
    for (int c = 0; c < cols_; ++c) {
        const auto [x0, x1] = gap(static_cast<float>(c) * size.x / static_cast<float>(cols_));
        dl->AddRectFilled(ImVec2(at.x + x0, at.y), ImVec2(at.x + x1, at.y + size.y), IM_COL32_WHITE);
    }
    for (int r = 0; r < rows_; ++r) {
        const auto [y0, y1] = gap(static_cast<float>(r) * size.y / static_cast<float>(rows_));
        dl->AddRectFilled(ImVec2(at.x, at.y + y0), ImVec2(at.x + size.x, at.y + y1), IM_COL32_WHITE);
    }
}

Heatmap& HeatmapCache::get(const std::string& key) {
    Entry& e = entries_[key];
    if (!e.heatmap) e.heatmap = std::make_unique<Heatmap>();
    e.used = true;
    return *e.heatmap;
}

void HeatmapCache::end_frame() {
    // Deleting a texture the last frame drew is the same hazard as re-specifying one.
    if (std::any_of(entries_.begin(), entries_.end(), [](const auto& e) { return !e.second.used; }))
        finish_pending_drawing();
    for (auto it = entries_.begin(); it != entries_.end();) {
        if (!it->second.used) {
            it = entries_.erase(it);
        } else {
            it->second.used = false;
            ++it;
        }
    }
}

}  // namespace app
