#include "platform/platform.h"

// The browser's side of the seam. JavaScript reaches the page: the state on `window`,
// downloads as object URLs, the clipboard, the Fullscreen API.
#include <emscripten.h>

#include <filesystem>
#include <limits>
#include <set>
#include <string>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cstdio>

#include "base/file_io.h"
#include "model/model_source.h"
#include "output/zip_archive.h"
#include "platform/web_hub.h"

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

// Downloads the files `names` (comma-separated) from `base` (relative to the page) into
// the folder `dir` of the page's file system, the last one written last: when it is
// there, all are. Progress and the outcome stay in Module.attnscopeFetches[dir].
EM_JS(void, js_fetch_files, (const char* base, const char* dir, const char* names), {
    // (Promise chains: Debian's emscripten 3.1.6 parses its JavaScript without async/await.)
    var from = UTF8ToString(base), into = UTF8ToString(dir), list = UTF8ToString(names).split(",");
    var st = (Module.attnscopeFetches = Module.attnscopeFetches || {})[into] = {got: 0, state: 0, error: ""};
    var files = [];
    function fetchOne(name) {
        return fetch(from + name).then(function(r) {
            if (!r.ok) throw new Error(from + name + ": HTTP " + r.status);
            var reader = r.body.getReader(), parts = [], size = 0;
            function pump() {
                return reader.read().then(function(chunk) {
                    if (chunk.done) {
                        var bytes = new Uint8Array(size), at = 0;
                        parts.forEach(function(part) { bytes.set(part, at); at += part.length; });
                        files.push([name, bytes]);
                        return;
                    }
                    parts.push(chunk.value);
                    size += chunk.value.length;
                    st.got += chunk.value.length;
                    return pump();
                });
            }
            return pump();
        });
    }
    list.reduce(function(chain, name) { return chain.then(function() { return fetchOne(name); }); }, Promise.resolve())
        .then(function() {
            FS.mkdirTree(into);
            files.forEach(function(f) { FS.writeFile(into + "/" + f[0], f[1]); });
            st.state = 1;
        })
        .catch(function(e) { st.state = -1; st.error = String((e && e.message) || e); });
});

// The browser's file chooser; the chosen files are copied into /uploads/ of the page's
// file system (several at once: a checkpoint with its config.json beside it). The path
// given back is the .safetensors one's, else the first's.
// Module.attnscopePicked[purpose]: {state: 0 reading, 1 there, -1 refused}.
EM_JS(void, js_pick_file, (const char* purpose, double max_bytes), {
    var why = UTF8ToString(purpose);
    var input = document.createElement("input");
    input.type = "file";
    input.multiple = true;
    input.onchange = function() {
        var files = Array.prototype.slice.call(input.files);
        if (!files.length) return;
        var st = (Module.attnscopePicked = Module.attnscopePicked || {})[why] = {state: 0, path: "", error: ""};
        var total = files.reduce(function(sum, f) { return sum + f.size; }, 0);
        if (total > max_bytes) {
            st.state = -1;
            st.error = files.map(function(f) { return f.name; }).join(", ") + " is " + (total / 1e9).toFixed(2) +
                       " GB: the page opens files up to " + (max_bytes / 1e9).toFixed(2) +
                       " GB (a model needs its file and its weights in the page's 4 GB at once)";
            return;
        }
        var main = files.filter(function(f) { return /[.]safetensors$/.test(f.name); })[0] || files[0];
        Promise.all(files.map(function(f) {
            return f.arrayBuffer().then(function(buffer) {
                FS.mkdirTree("/uploads");
                FS.writeFile("/uploads/" + f.name.split("/").join("_"), new Uint8Array(buffer));
            });
        })).then(function() {
            st.path = "/uploads/" + main.name.split("/").join("_");
            st.state = 1;
        }).catch(function(e) { st.state = -1; st.error = "cannot read " + main.name + ": " + String((e && e.message) || e); });
    };
    input.click();
});

// 1 (the path in `out`) or -1 (the refusal in `out`) once, then forgotten; 0 otherwise.
EM_JS(int, js_picked_file, (const char* purpose, char* out, int out_size), {
    var all = Module.attnscopePicked || {}, why = UTF8ToString(purpose), st = all[why];
    if (!st || st.state === 0) return 0;
    delete all[why];
    stringToUTF8(st.state === 1 ? st.path : st.error, out, out_size);
    return st.state;
});

// 0: on its way, 1: done, -1: failed (the reason in `error`); `got` the bytes so far.
EM_JS(int, js_fetch_status, (const char* dir, double* got, char* error, int error_size), {
    const st = (Module.attnscopeFetches || {})[UTF8ToString(dir)];
    if (!st) return -1;
    HEAPF64[got >> 3] = st.got;
    stringToUTF8(st.error, error, error_size);
    return st.state;
});
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

namespace {
// A shipped model's files as the site holds them (app/web/Web.cmake copies them to
// models/<name>/ and writes their sizes into shipped_bytes.inc), config.json first: the
// weights last.
constexpr const char* kShippedFiles = "config.json,model.safetensors";
struct ShippedBytes {
    const char* name;
    double bytes;
};
constexpr ShippedBytes kShippedBytes[] = {
#include "shipped_bytes.inc"
};

double shipped_bytes(const std::string& name) {
    for (const ShippedBytes& s : kShippedBytes)
        if (name == s.name) return s.bytes;
    return 0.0;
}

std::string megabytes(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
    return text;
}
}  // namespace

std::string fetch_model(const std::optional<std::string>& model, std::string& error) {
    if (model && attn::is_hub_repo_id(*model)) return fetch_hub_model(*model, error);
    if (!model || !attn::is_shipped_model(*model) || attn::shipped_model_present(*model)) return "";
    const std::string dir = attn::shipped_model_dir(*model);
    static std::set<std::string> asked;  // once a page: a failed download is said, not retried each frame
    if (asked.insert(*model).second) js_fetch_files(("models/" + *model + "/").c_str(), dir.c_str(), kShippedFiles);
    double got = 0.0;
    char why[512] = "";
    const int status = js_fetch_status(dir.c_str(), &got, why, sizeof why);
    if (status == 1) return "";
    if (status == -1) {
        error = "cannot download the shipped model " + *model + ": " + why + " (reload the page to try again)";
        return "";
    }
    return "downloading " + *model + ": " + megabytes(got) + " of " + megabytes(shipped_bytes(*model)) + "…";
}

// A Hub repository's download, its progress, Cancel and revision: web_hub.cpp.

std::string download_note(const std::string& model) {
    // Asked every frame the model list is drawn: a stat of the page's file system, until
    // the download is there (it stays).
    static std::set<std::string> present;
    if (!attn::is_shipped_model(model) || present.count(model)) return "";
    if (attn::shipped_model_present(model)) {
        present.insert(model);
        return "";
    }
    return " · a " + megabytes(shipped_bytes(model)) + " download";
}

// GPT-2 small's checkpoint (548 MB) opens; GPT-2 medium's (1.52 GB) would need more than
// the page's 4 GB with its weights read out of it.
constexpr double kMaxPickedBytes = 1e9;

bool has_file_picker() { return true; }

void pick_file(const std::string& purpose) { js_pick_file(purpose.c_str(), kMaxPickedBytes); }

std::optional<std::string> picked_file(const std::string& purpose, std::string& error) {
    char text[1024] = "";
    const int status = js_picked_file(purpose.c_str(), text, sizeof text);
    if (status == 1) return std::string(text);
    if (status == -1) error = text;
    return std::nullopt;
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
