// What Dear ImGui 1.86's OpenGL backend (imgui_impl_opengl3.cpp) asks of WebGL, answered
// without a stall. Web.cmake points these of its calls here (-DglGetIntegerv=..., ...);
// the app's own GL calls go to WebGL as they are.
//
// - Its state backup reads GL_SCISSOR_BOX and the blend functions and equations each frame:
//   Chrome answers those from the GPU process, so each frame waited there until every
//   command before it was drawn (SwiftShader: on the CPU). In a drag of the seed slider
//   that took 30-60 ms a frame (bench/web_bench.mjs). Only the backend sets them
//   (the app's heatmap painter sets neither), so a copy of what it set is their value.
// - Its vertices and indices went in with glBufferSubData into the buffers the last frame
//   drew from (its 2021-12-15 change, reverted in 1.87); here each upload gets new storage.
#include "graphics/gl.h"

namespace {

struct Shadow {
    GLint scissor[4] = {0, 0, 0, 0};  // set by the backend before any draw it makes
    GLint blend_src_rgb = GL_ONE, blend_dst_rgb = GL_ZERO, blend_src_alpha = GL_ONE, blend_dst_alpha = GL_ZERO;
    GLint blend_equation_rgb = GL_FUNC_ADD, blend_equation_alpha = GL_FUNC_ADD;
};
Shadow shadow;

}  // namespace

extern "C" {

void attnscope_imgui_get_integerv(GLenum name, GLint* out) {
    switch (name) {
    case GL_SCISSOR_BOX: for (int i = 0; i < 4; ++i) out[i] = shadow.scissor[i]; return;
    case GL_BLEND_SRC_RGB: *out = shadow.blend_src_rgb; return;
    case GL_BLEND_DST_RGB: *out = shadow.blend_dst_rgb; return;
    case GL_BLEND_SRC_ALPHA: *out = shadow.blend_src_alpha; return;
    case GL_BLEND_DST_ALPHA: *out = shadow.blend_dst_alpha; return;
    case GL_BLEND_EQUATION_RGB: *out = shadow.blend_equation_rgb; return;
    case GL_BLEND_EQUATION_ALPHA: *out = shadow.blend_equation_alpha; return;
    default: glGetIntegerv(name, out);  // the rest Chrome answers from its own copy
    }
}

void attnscope_imgui_scissor(GLint x, GLint y, GLsizei w, GLsizei h) {
    shadow.scissor[0] = x;
    shadow.scissor[1] = y;
    shadow.scissor[2] = w;
    shadow.scissor[3] = h;
    glScissor(x, y, w, h);
}

void attnscope_imgui_blend_equation(GLenum mode) {
    shadow.blend_equation_rgb = shadow.blend_equation_alpha = static_cast<GLint>(mode);
    glBlendEquation(mode);
}

void attnscope_imgui_blend_equation_separate(GLenum rgb, GLenum alpha) {
    shadow.blend_equation_rgb = static_cast<GLint>(rgb);
    shadow.blend_equation_alpha = static_cast<GLint>(alpha);
    glBlendEquationSeparate(rgb, alpha);
}

void attnscope_imgui_blend_func_separate(GLenum src_rgb, GLenum dst_rgb, GLenum src_alpha, GLenum dst_alpha) {
    shadow.blend_src_rgb = static_cast<GLint>(src_rgb);
    shadow.blend_dst_rgb = static_cast<GLint>(dst_rgb);
    shadow.blend_src_alpha = static_cast<GLint>(src_alpha);
    shadow.blend_dst_alpha = static_cast<GLint>(dst_alpha);
    glBlendFuncSeparate(src_rgb, dst_rgb, src_alpha, dst_alpha);
}

void attnscope_imgui_buffer_sub_data(GLenum target, GLintptr offset, GLsizeiptr size, const void* data) {
    if (offset == 0) glBufferData(target, size, data, GL_STREAM_DRAW);  // the backend's only use
    else glBufferSubData(target, offset, size, data);
}

}  // extern "C"
