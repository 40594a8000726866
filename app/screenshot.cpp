#include "screenshot.h"

#include <iostream>
#include <vector>

#include "gl.h"
#include "stb_image_write.h"

namespace app {

bool write_screenshot(const std::string& path, int width, int height) {
    std::vector<unsigned char> pixels(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
    stbi_flip_vertically_on_write(1);  // GL's rows run bottom-up
    if (!stbi_write_png(path.c_str(), width, height, 3, pixels.data(), width * 3)) {
        std::cerr << "attnscope: cannot write " << path << "\n";
        return false;
    }
    return true;
}

}  // namespace app
