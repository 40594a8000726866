#include "graphics/heatmap.h"

#include <algorithm>
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

}  // namespace

HeatmapPainter::HeatmapPainter(const std::string& shaders_dir, ColorMaps maps) : maps_(std::move(maps)) {
    const GLuint vs = compile(GL_VERTEX_SHADER, shaders_dir + "/heatmap.vert");
    const GLuint fs = compile(GL_FRAGMENT_SHADER, shaders_dir + "/heatmap.frag");
    program_ = glCreateProgram();
    glAttachShader(program_, vs);
    glAttachShader(program_, fs);
    glLinkProgram(program_);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(program_, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetProgramInfoLog(program_, sizeof log, nullptr, log);
        throw std::runtime_error(std::string("heatmap shader: ") + log);
    }
    glGenVertexArrays(1, &vao_);  // the quad comes from gl_VertexID; core profile still needs a VAO

    // The colour maps never change while the app runs: set them once.
    glUseProgram(program_);
    glUniform1i(glGetUniformLocation(program_, "u_values"), 0);
    set_color(program_, "u_masked_bg", maps_.stops("masked").front().rgb);
    set_color(program_, "u_masked_stripe", maps_.stops("masked").back().rgb);
    set_color(program_, "u_kept", maps_.stops("kept").front().rgb);
    set_color(program_, "u_gap", {1.0f, 1.0f, 1.0f});
    glUseProgram(0);
    set_theme(*theme_);
}

void HeatmapPainter::set_theme(const ColorTheme& theme) {
    glUseProgram(program_);
    set_stops(program_, "seq", maps_.stops(theme.sequential));
    set_stops(program_, "div", maps_.stops(theme.diverging));
    glUseProgram(0);
    if (&theme != theme_) ++theme_version_;
    theme_ = &theme;
}

HeatmapPainter::~HeatmapPainter() {
    glDeleteVertexArrays(1, &vao_);
    glDeleteProgram(program_);
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

void HeatmapPainter::paint(GLuint values, int cols, int rows, const ColorScale& scale, float grid_px, GLuint fbo,
                           int width, int height) const {
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, width, height);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glUseProgram(program_);
    glUniform2i(glGetUniformLocation(program_, "u_cells"), cols, rows);
    glUniform1i(glGetUniformLocation(program_, "u_mode"), static_cast<int>(scale.mode));
    glUniform1f(glGetUniformLocation(program_, "u_lo"), scale.lo);
    glUniform1f(glGetUniformLocation(program_, "u_hi"), scale.hi);
    glUniform1f(glGetUniformLocation(program_, "u_grid"), grid_px);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, values);
    glBindVertexArray(vao_);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindVertexArray(0);
    glUseProgram(0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);  // ImGui's renderer sets its own viewport and state
}

Heatmap::~Heatmap() {
    glDeleteFramebuffers(1, &fbo_);
    glDeleteTextures(1, &color_);
    glDeleteTextures(1, &values_);
}

void Heatmap::set_values(const attn::Matrix& m, uint64_t version, const attn::Matrix* masked_by, int max_texels) {
    if (version == version_ && max_texels == max_texels_) return;
    version_ = version;
    max_texels_ = max_texels;
    painted_ = false;
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

ImTextureID Heatmap::texture(const HeatmapPainter& painter, int width, int height, const ColorScale& scale,
                             float grid_px) {
    if (width != width_ || height != height_ || !color_) {
        // A render target is re-specified (sizes change on a resize, zoom or UI scale).
        if (color_) finish_pending_drawing();
        if (!color_) {
            glGenTextures(1, &color_);
            glGenFramebuffers(1, &fbo_);
        }
        glBindTexture(GL_TEXTURE_2D, color_);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color_, 0);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        width_ = width;
        height_ = height;
        painted_ = false;
    }
    if (!painted_ || !(scale == scale_) || grid_px != grid_px_ || painter.theme_version() != theme_version_) {
        painter.paint(values_, cols_, rows_, scale, grid_px, fbo_, width_, height_);
        scale_ = scale;
        grid_px_ = grid_px;
        theme_version_ = painter.theme_version();
        painted_ = true;
    }
    return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(color_));
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
