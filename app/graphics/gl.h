#pragma once
// The app's own OpenGL calls (heatmap shaders, screenshots) use the core profile
// prototypes that Mesa's libGL exports; GLFW must not pull in its own GL header.
#define GLFW_INCLUDE_NONE
#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>
