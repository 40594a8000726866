// attnscope in a browser: the desktop app's frame (app_frame.h) in the browser's own
// loop. The page's link is its command line (state/link.h): a bad link is refused in
// one line on the page, the default view opening instead; the link follows the controls.
#include <emscripten.h>

#include <memory>
#include <optional>
#include <string>

#include "graphics/gl.h"
#include <GLFW/glfw3.h>

#include "app_frame.h"
#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "imgui.h"
#include "keyboard.h"
#include "state/link.h"
#include "state/startup.h"

namespace {

// clang-format off
EM_JS(char*, js_link_query, (), { return stringToNewUTF8(window.location.search); });
EM_JS(void, js_keep_link, (const char* query), {
    const q = UTF8ToString(query);
    const url = window.location.pathname + (q ? "?" + q : "") + window.location.hash;
    if (url !== window.location.pathname + window.location.search + window.location.hash)
        window.history.replaceState(null, "", url);
});
// The refusal stays on the page (and on window.attnscopeRefusal) until dismissed.
EM_JS(void, js_refuse, (const char* line), {
    const text = UTF8ToString(line);
    window.attnscopeRefusal = text;
    const box = document.getElementById("refusal");
    if (box) { box.textContent = "attnscope: " + text + " (the default view is shown; click to close)"; box.hidden = false; }
});
// Tests and benchmarks ask for the app's state (and frame times) by setting
// window.attnscopePublishState before the app starts, as the desktop app's are asked for
// with --state-out: a page for people does not build and parse the state every frame.
// "frames" asks for the frame times only (a benchmark timing the page as people get it).
EM_JS(int, js_wants_state, (), {
    return window.attnscopePublishState === "frames" ? 2 : window.attnscopePublishState ? 1 : 0;
});
// When each frame drawn started and how long its work took (ms), the last 600, for
// bench/web_bench.mjs: the intervals between starts are what a user sees. A frame held
// back for a recompute that fits in it (app_frame.cpp) draws nothing: its work counts
// towards the next one drawn.
EM_JS(void, js_frame_took, (double started, double ms), {
    var at = window.attnscopeFrameAt = window.attnscopeFrameAt || [];
    var times = window.attnscopeFrameMs = window.attnscopeFrameMs || [];
    at.push(started);
    times.push(ms);
    if (times.length > 600) { at.shift(); times.shift(); }
});
// The benchmark's floors (window.attnscopeFloor before the app starts): 1, frames that
// only clear the canvas; 2, a Dear ImGui window over the canvas with one line of text
// (without a background, as the app's: the cleared canvas is its white).
EM_JS(int, js_floor, (), { return window.attnscopeFloor === "clear" ? 1 : window.attnscopeFloor === "imgui" ? 2 : 0; });
// The browser test's window.attnscopeSliceMs: how long a frame goes on with a run in
// steps (AppFrame::set_work_slice); -1 when not given.
EM_JS(double, js_slice_ms, (), { return typeof window.attnscopeSliceMs === "number" ? window.attnscopeSliceMs : -1; });
EM_JS(int, js_page_width, (), { return window.innerWidth; });
EM_JS(int, js_page_height, (), { return window.innerHeight; });
// clang-format on

struct Page {
    GLFWwindow* window = nullptr;
    std::unique_ptr<app::AppFrame> app;
    int width = 0, height = 0;
    std::optional<std::string> link;  // the query written into the URL (none yet: the link as opened)
    double link_at = -1e9;            // when it was written (emscripten_get_now, ms)
    bool test_hooks = false;
    int floor = 0;  // js_floor's
    double held_back_ms = 0;  // the work of the frame drawn and of those held back before it
};
Page page;

// The link's view, or the default one with the link's refusal shown.
app::Startup startup_from_link() {
    char* query = js_link_query();
    const std::string text = query;
    free(query);
    try {
        app::Startup startup = app::parse_startup(app::link_args(text));
        if (!startup.help) return startup;
        js_refuse("'help' is a flag of the desktop app; a link cannot give it");
    } catch (const std::exception& e) {
        js_refuse(e.what());
    }
    return app::Startup{};
}

// A frame of the benchmark's floor: what any page drawing this canvas pays.
void floor_frame() {
    if (page.floor == 2) {
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
        ImGui::Begin("floor", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoBackground);
        ImGui::Text("frame %d", ImGui::GetFrameCount());
        ImGui::End();
        ImGui::Render();
    }
    glViewport(0, 0, page.width, page.height);
    glClearColor(1.0f, 1.0f, 1.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (page.floor == 2) ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void frame() {
    const double started = emscripten_get_now();
    // The canvas fills the page.
    const int w = js_page_width(), h = js_page_height();
    if (w != page.width || h != page.height) {
        page.width = w;
        page.height = h;
        glfwSetWindowSize(page.window, w, h);
    }
    if (page.floor) {
        floor_frame();
        js_frame_took(started, emscripten_get_now() - started);
        return;
    }
    const double time_before = glfwGetTime();
    page.app->frame();
    // A frame held back for a recompute that fitted in it (app_frame.cpp) is followed at
    // once by the frame that draws the new run, in the same browser frame, as the desktop's
    // loop goes straight on: returning would show nothing new until the next one, and a
    // dragged slider was drawn every 33 ms where the browser draws every 16.7. (Not when
    // the clock has not moved: Dear ImGui needs a positive time between two frames.)
    if (!page.app->drew() && glfwGetTime() > time_before) page.app->frame();
    // The URL follows the controls at most every kLinkEveryMs: Chrome's replaceState took
    // about 2.7 ms a call, and a dragged slider changes the link on every frame. The last
    // change is written a frame after the interval, once the controls are still.
    constexpr double kLinkEveryMs = 200.0;
    if (const std::string& link = page.app->link(); link != page.link && started - page.link_at >= kLinkEveryMs) {
        page.link = link;
        page.link_at = started;
        js_keep_link(link.c_str());
    }
    if (!page.test_hooks) return;
    page.held_back_ms += emscripten_get_now() - started;
    if (!page.app->drew()) return;
    js_frame_took(started, page.held_back_ms);
    page.held_back_ms = 0;
}

}  // namespace

int main() {
    app::Startup startup = startup_from_link();
    const int wants = js_wants_state();
    page.test_hooks = wants != 0;
    if (wants == 1) startup.options.state_out = "window.attnscopeState";  // platform/web.cpp publishes it there
    if (!glfwInit()) return 1;
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);  // WebGL2
    page.width = js_page_width();
    page.height = js_page_height();
    page.window = glfwCreateWindow(page.width, page.height, "attnscope: attention, stage by stage", nullptr, nullptr);
    if (!page.window) return 1;
    glfwMakeContextCurrent(page.window);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui_ImplGlfw_InitForOpenGL(page.window, true);
    app::install_keyboard(page.window);
    ImGui_ImplOpenGL3_Init("#version 300 es");
    ImGui_ImplOpenGL3_CreateDeviceObjects();
    page.floor = page.test_hooks ? js_floor() : 0;
    if (page.floor) {
        emscripten_set_main_loop(frame, 0, false);
        return 0;
    }
    page.app = std::make_unique<app::AppFrame>(page.window, startup.settings, startup.options);
    if (!page.app->ready() && !page.app->start_error().empty()) {
        // A link the flags' parser took but the app could not open (an unknown lesson):
        // the same refusal, and the default view.
        js_refuse(page.app->start_error().c_str());
        app::Startup fallback;
        fallback.options.state_out = startup.options.state_out;
        page.app.reset();
        page.app = std::make_unique<app::AppFrame>(page.window, fallback.settings, fallback.options);
    }
    if (!page.app->ready()) return 1;  // the page's own files are broken: the console says which
    if (const double slice_ms = page.test_hooks ? js_slice_ms() : -1; slice_ms >= 0)
        page.app->set_work_slice(std::chrono::microseconds(static_cast<int64_t>(slice_ms * 1000)));
    emscripten_set_main_loop(frame, 0, false);
    return 0;
}
