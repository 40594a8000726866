#include "platform/platform.h"

// The browser's side of the seam. JavaScript reaches the page: the state on `window`,
// downloads as object URLs, the clipboard, the Fullscreen API.
#include <emscripten.h>

#include <filesystem>
#include <limits>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "base/file_io.h"
#include "output/zip_archive.h"

namespace {

// clang-format off
EM_JS(void, js_publish_state, (const char* json), {
    window.attnscopeState = JSON.parse(UTF8ToString(json));
});

// A download of bytes the page holds; the names downloaded so far stay on
// window.attnscopeDownloads for tests.
EM_JS(void, js_download, (const char* name, const char* data, int size), {
    const file = UTF8ToString(name);
    const blob = new Blob([HEAPU8.slice(data, data + size)], {type: "application/octet-stream"});
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = file;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
    (window.attnscopeDownloads = window.attnscopeDownloads || []).push(file);
});

// The last text copied stays on window.attnscopeClipboard: a page may write the
// clipboard only while the user acts, and tests read it there.
EM_JS(void, js_copy, (const char* text), {
    const t = UTF8ToString(text);
    window.attnscopeClipboard = t;
    if (navigator.clipboard) navigator.clipboard.writeText(t).catch(() => {});
});

// Browsers grant full screen only from the user's own key press or click: the request
// waits for the next one when this frame is not inside such an event.
EM_JS(void, js_full_screen, (int on), {
    if (on && !document.fullscreenElement) {
        const ask = () => document.documentElement.requestFullscreen().catch(() => {});
        if (navigator.userActivation && !navigator.userActivation.isActive)
            window.addEventListener("keyup", ask, {once: true});
        else
            ask();
    } else if (!on && document.fullscreenElement) {
        document.exitFullscreen().catch(() => {});
    }
});

EM_JS(int, js_screen_height, (), { return (window.screen && window.screen.height) || 1080; });
// clang-format on

}  // namespace

namespace app::platform {

void publish_state(const std::string&, const std::string& json) { js_publish_state(json.c_str()); }

std::string deliver(const std::string& path) {
    namespace fs = std::filesystem;
    try {
        const fs::path p(path);
        std::string name = p.filename().string(), bytes;
        if (fs::is_directory(p)) {
            bytes = attn::zip_archive(attn::files_under(path));
            name += ".zip";
        } else {
            bytes = attn::read_file_capped(path, std::numeric_limits<int>::max(), "an export");
        }
        js_download(name.c_str(), bytes.data(), static_cast<int>(bytes.size()));
        fs::remove_all(p);  // the page's memory: the download holds it now
        return "";
    } catch (const std::exception& e) {
        return std::string("cannot download ") + path + ": " + e.what();
    }
}

void copy_text(const std::string& text) { js_copy(text.c_str()); }

void full_screen(GLFWwindow*, bool on) { js_full_screen(on ? 1 : 0); }

int screen_height() { return js_screen_height(); }

void on_characters(GLFWwindow* window, CharacterCallback callback) {
    static CharacterCallback chosen = nullptr;  // one window
    chosen = callback;
    glfwSetCharCallback(window, [](GLFWwindow* w, unsigned int codepoint) { chosen(w, codepoint, 0); });
}

}  // namespace app::platform
