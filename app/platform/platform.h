#pragma once
// What differs between the desktop app and the browser page, in one place. The views,
// panels and state call these; app/platform/desktop.cpp and app/platform/web.cpp are
// the two ways to do each (CMake builds one). The worker's thread is the other seam
// (state/worker_thread.cpp, state/worker_frames.cpp).
#include <optional>
#include <string>
#include <vector>

struct GLFWwindow;

namespace app::platform {

// The app's state as JSON for tests and scripts (state/state_file.h): on the desktop the
// file `path` (--state-out), replaced whole; in the browser window.attnscopeState.
void publish_state(const std::string& path, const std::string& json);

// A file or folder the app has just written at the user's request (an export, a
// session). On the desktop it is where they asked; in the browser it is offered as a
// download (a folder as a .zip of its files). Returns why not, or "".
std::string deliver(const std::string& path);

// The files a model needs that are not here yet: the browser page downloads the shipped
// model only when it is chosen; the desktop downloads a Hugging Face Hub repository
// (ORG/NAME) that is not in the cache (hub/hub_fetch.h), on a thread of its own. Call each
// frame with the model the controls ask for; it starts the download once. Returns the
// progress line ("" when nothing is pending); `error` gets why a download failed (or that
// it was cancelled).
std::string fetch_model(const std::optional<std::string>& model, std::string& error);
// The share of `model`'s download that is here (0 to 1), -1 when none is under way.
double fetch_fraction(const std::optional<std::string>& model);
// Stops `model`'s download: what arrived stays, and the next one goes on from it.
void cancel_fetch(const std::string& model);
// Forgets that `model`'s download failed or was cancelled: fetch_model tries again.
void retry_fetch(const std::string& model);
// Whether this platform fetches Hub repositories (the model list's "Get a model from the Hub").
bool fetches_from_hub();
// What a gated repository needs here, for the model list: " (gated: ...)".
std::string gated_note();
// `--model ORG/NAME --revision REV`: the repository's download fetches REV (a branch, tag
// or commit) instead of main, and once REV is here pinned_folder(ORG/NAME) returns its
// snapshot folder, once: the controls then name that folder, as the CLI's run does.
void pin_revision(const std::string& repo, const std::string& revision);
std::optional<std::string> pinned_folder(const std::string& model);
// The Hub's models this platform keeps outside its file system for the next visit and an
// offline one: the page's Cache Storage (its file system is gone when the page closes).
// None on the desktop, whose cache is the disk's. Listed again after each download and
// removal; `usage` and `quota` are the browser's figures for the whole site.
struct KeptModel {
    std::string repo;  // ORG/NAME
    double bytes = 0;  // its files
};
struct KeptModels {
    std::vector<KeptModel> models;
    double usage = 0, quota = 0;  // bytes: what the site uses of the browser's storage, and may
};
const KeptModels& kept_models();
// Removes `repo`'s files from that storage: the next visit downloads it again (this one
// keeps it open).
void remove_kept_model(const std::string& repo);
// What choosing `model` will download, for the model list ("" when nothing):
// " · a 22.9 MB download".
std::string download_note(const std::string& model);

// The browser's file picker, for what opens a file (a session, a corpus, a checkpoint):
// the desktop's dialogs take a typed path and it has none (has_file_picker() is false).
// pick_file(purpose) opens it; the file chosen is copied into the page's file system and
// picked_file(purpose) returns its path once, when it is there; `error` gets the
// one-line refusal of a file too large for the page's memory.
bool has_file_picker();
void pick_file(const std::string& purpose);
std::optional<std::string> picked_file(const std::string& purpose, std::string& error);

// Text for the clipboard ("Copy as PyTorch").
void copy_text(const std::string& text);

// Presenter mode's screen: a monitor's full screen on the desktop, the browser's full
// screen in a page; off restores the window as it was.
void full_screen(GLFWwindow* window, bool on);
// The height in pixels of the screen presenter mode fills (1080 when unknown).
int screen_height();

// Typed characters with the modifiers held (keyboard.h says why): GLFW's char-mods
// callback on the desktop; the browser's GLFW has none, so there mods are 0 (the
// characters of a Ctrl+key shortcut never arrive as characters in a browser).
using CharacterCallback = void (*)(GLFWwindow* window, unsigned int codepoint, int mods);
void on_characters(GLFWwindow* window, CharacterCallback callback);

}  // namespace app::platform
