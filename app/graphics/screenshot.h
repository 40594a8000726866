#pragma once
// The window's pixels as a PNG: read from the back buffer before it is swapped.
#include <string>

namespace app {

// Returns false (and says why on stderr) when the file cannot be written.
bool write_screenshot(const std::string& path, int width, int height);

}  // namespace app
