#include "graphics/screenshot.h"

#include <iostream>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "graphics/gl.h"
#include "stb_image_write.h"

namespace app {

bool write_screenshot(const std::string& path, int width, int height) {
    std::vector<unsigned char> pixels(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
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
