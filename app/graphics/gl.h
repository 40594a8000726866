#pragma once
// The app's own OpenGL calls (heatmap shaders, screenshots) use the core profile
// prototypes that Mesa's libGL exports; GLFW must not pull in its own GL header.
#define GLFW_INCLUDE_NONE
#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>

namespace app {

// Waits until OpenGL has drawn everything asked of it. Call it before a texture the last
// frame drew or drew into is re-specified or deleted: Mesa 22.3's llvmpipe (Debian 12's
// software OpenGL) frees the old storage while its threads may still be drawing, and the
// heap was corrupted (the monkey test crashed in malloc about one run in three after a
// resize or a UI-scale change; none in ten with this wait, or with LP_NUM_THREADS=0).
inline void finish_pending_drawing() { glFinish(); }

}  // namespace app
