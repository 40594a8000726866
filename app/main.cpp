// attnscope: type a sentence, see every stage of its attention.
// main() sets up the window, then runs Dear ImGui's usual loop: wait for something to
// happen, draw a frame (app_frame.h). The wait is the throttle: the window redraws when
// there is input or a finished recompute rather than spinning, so that a background
// recompute gets the CPU.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "graphics/gl.h"
#include <GLFW/glfw3.h>

#include "app_frame.h"
#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "base/data_dir.h"
#include "base/user_error.h"
#include "base/version.h"
#include "numerics/blas_kernels.h"
#include "numerics/machine.h"
#include "graphics/driver_pinning.h"
#include "imgui.h"
#include "keyboard.h"
#include "numerics/memory.h"
#include "platform/platform.h"
#include "state/startup.h"

namespace {

constexpr double kActiveSeconds = 0.3;   // keep drawing this long after any event
constexpr double kIdleWait = 0.5;        // redraw at least this often when idle
constexpr double kComputingWait = 0.1;   // redraw at least this often while the worker runs

// Exits 2 with one line on stderr for a bad command line, as attnscope-cli does.
std::optional<app::Startup> parse_command_line(int argc, char** argv, int& exit_code) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.size() == 1 && args[0] == "--version") {
            std::cout << attn::version_text("attnscope") << attn::machine_text();
            exit_code = 0;
            return std::nullopt;
        }
        app::Startup startup = app::parse_startup(args);
        if (startup.help) {
            std::cout << app::app_usage() << attn::settings_usage();
            exit_code = 0;
            return std::nullopt;
        }
        return startup;
    } catch (const std::exception& e) {
        std::cerr << "attnscope: " << e.what() << "\n";
        exit_code = 2;
        return std::nullopt;
    }
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The wait before each frame. Under software OpenGL a frame costs both cores, which a
// recompute needs more than the unchanged view needs redrawing: while the worker runs,
// draw on input, when its result wakes the loop, or at 10 frames a second; for a moment
// after input, draw at once; when idle, on input or twice a second.
class Throttle {
public:
    explicit Throttle(bool unthrottled) : unthrottled_(unthrottled) {}
    void wait(bool computing) {
        if (computing) {
            glfwWaitEventsTimeout(kComputingWait);
        } else if (unthrottled_ || seconds_since(last_event_) < kActiveSeconds) {
            glfwPollEvents();
        } else {
            const auto before = std::chrono::steady_clock::now();
            glfwWaitEventsTimeout(kIdleWait);
            if (seconds_since(before) < kIdleWait * 0.9) keep_active();  // woken by an event
        }
    }
    void keep_active() { last_event_ = std::chrono::steady_clock::now(); }

private:
    bool unthrottled_;
    std::chrono::steady_clock::time_point last_event_ = std::chrono::steady_clock::now();
};

// The window with an OpenGL 3.3 core context, or null (GLFW's error callback said why).
GLFWwindow* open_window(const app::AppOptions& opts) {
    if (!glfwInit()) return nullptr;
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    GLFWwindow* window =
        glfwCreateWindow(opts.width, opts.height, "attnscope: attention, stage by stage", nullptr, nullptr);
    if (!window) {
        glfwTerminate();
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    app::pin_gl_driver();
    return window;
}

}  // namespace

int main(int argc, char** argv) {
    attn::choose_blas_kernels(argv);
    int exit_code = 0;
    const std::optional<app::Startup> startup = parse_command_line(argc, argv, exit_code);
    if (!startup) return exit_code;
    const app::AppOptions& opts = startup->options;
    try {
        attn::data_dir();  // before a window opens: a missing data folder is one line
    } catch (const attn::UserError& e) {
        std::cerr << "attnscope: " << e.what() << "\n";
        return 2;
    }
    attn::keep_freed_memory_mapped();  // a recompute reuses the last one's memory, without page faults

    glfwSetErrorCallback([](int, const char* what) { std::cerr << "attnscope: GLFW: " << what << "\n"; });
    if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")) {
        std::cerr << "attnscope: no display to open the window on (DISPLAY is not set): start it from a desktop "
                     "session, or on a machine without one under a virtual display: xvfb-run -a scripts/run.sh\n";
        return 1;
    }
    GLFWwindow* window = open_window(opts);
    if (!window) return 1;
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to remember
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    app::install_keyboard(window);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    ImGui_ImplOpenGL3_CreateDeviceObjects();  // so that FontSet can replace the font texture

    if (opts.revision) app::platform::pin_revision(*startup->settings.model, *opts.revision);
    {  // the frame's GL objects must be gone before the context is
        app::AppFrame app(window, startup->settings, opts);
        glfwSwapInterval(app.unthrottled() ? 0 : 1);
        Throttle throttle(app.unthrottled());
        while (app.ready() && !glfwWindowShouldClose(window)) {
            throttle.wait(app.computing());
            if (app.frame()) throttle.keep_active();
        }
        exit_code = app.finish();
    }

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return exit_code;
}
