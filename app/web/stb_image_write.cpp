// stb_image_write's code, once: the desktop app links Debian's libstb, which the web
// build cannot (it is built for the host); the header is the same Debian file.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include "stb_image_write.h"
