#pragma once
// The app's own OpenGL calls (heatmap shaders, screenshots) use OpenGL 3.3 core on the
// desktop (the prototypes Mesa's libGL exports) and OpenGL ES 3.0 in the browser
// (WebGL2): the calls the app makes are in both. GLFW must not pull in its own GL header.
#define GLFW_INCLUDE_NONE
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>
#endif

namespace app {

// What a shader starts with in place of its file's "#version 330 core" line.
#ifdef __EMSCRIPTEN__
inline constexpr const char* kGlslHeader = "#version 300 es\nprecision highp float;\nprecision highp int;\n";
#else
inline constexpr const char* kGlslHeader = "#version 330 core\n";
#endif

// Waits until OpenGL has drawn everything asked of it. Call it before a texture the last
// frame drew or drew into is re-specified or deleted: Mesa 22.3's llvmpipe (Debian 12's
// software OpenGL) frees the old storage while its threads may still be drawing, and the
// heap was corrupted (the monkey test crashed in malloc about one run in three after a
// resize or a UI-scale change; none in ten with this wait, or with LP_NUM_THREADS=0).
// WebGL itself keeps a texture's old storage until drawing from it is done, and there
// glFinish makes the page wait for the browser's GPU process: a no-op in the web build.
#ifdef __EMSCRIPTEN__
inline void finish_pending_drawing() {}
#else
inline void finish_pending_drawing() { glFinish(); }
#endif

}  // namespace app
