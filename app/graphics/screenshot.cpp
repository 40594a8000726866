#include "graphics/screenshot.h"

#include <iostream>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "graphics/gl.h"
#include "stb_image_write.h"

namespace app {

bool write_screenshot(const std::string& path, int width, int height) {
    // RGBA: the one format OpenGL ES (WebGL2) must read back; the PNG keeps RGB.
    const size_t count = static_cast<size_t>(width) * static_cast<size_t>(height);
    std::vector<unsigned char> pixels(count * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    for (size_t i = 0; i < count; ++i)
        for (size_t c = 0; c < 3; ++c) pixels[i * 3 + c] = pixels[i * 4 + c];
    pixels.resize(count * 3);
    stbi_flip_vertically_on_write(1);  // GL's rows run bottom-up
    std::string png;
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<size_t>(size));
    };
    if (!stbi_write_png_to_func(append, &png, width, height, 3, pixels.data(), width * 3)) {
        std::cerr << "attnscope: cannot write " << path << ": PNG encoding failed\n";
        return false;
    }
    try {
        // As the other exports: whole or not at all, and no fsync (a screenshot is made again at once).
        attn::write_file_atomically(path, png, /*durable=*/false);
    } catch (const attn::FileError& e) {
        std::cerr << "attnscope: " << e.what() << "\n";
        return false;
    }
    return true;
}

}  // namespace app
