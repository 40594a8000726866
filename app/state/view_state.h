#pragma once
// What the window shows besides the run: the lessons and where the student is in
// them, presenter mode, the colour theme, the tab and the open comparison, and what the
// last export or session file did (said in place and in the state file).
#include <optional>
#include <string>
#include <vector>

#include "run/comparisons.h"
#include "state/open_check.h"
#include "classroom/lesson.h"

namespace app {

enum class ViewTab { Pipeline, Compare, HeadLines, KvCache, Tiled, Check };
// One name per tab, for --tab and the state file alike: "pipeline", "compare", "head-view",
// "kv-cache", "tiled-softmax", "check".
const std::vector<std::string>& view_tab_names();  // in ViewTab order
std::optional<ViewTab> view_tab_from_name(const std::string& name);
std::string view_tab_name(ViewTab tab);

// The outcome of a file action: what was written or read, or why not.
struct FileOutcome {
    std::string path;
    std::string error;  // empty: it worked
};

struct ViewState {
    attn::LessonLibrary library;
    int lesson = -1;            // index into library.lessons; -1: no lesson started yet
    int step = 0;               // counted from 0
    bool in_lesson = false;     // false with lesson >= 0: left to play, "Back to lesson" resumes
    std::string lesson_error;   // why the step's settings could not be applied

    bool presenter = false;
    // Focus: one stage full window (F; on by itself in presenter mode, where F brings the
    // whole pipeline back). focus_stage names it; focus_walk (-1, +1) moves it a stage
    // along the pipeline on the next frame.
    bool focus = false;
    std::string focus_stage = "weights";
    int focus_walk = 0;
    bool help = false;          // the shortcut overlay
    std::string theme = "default";  // a ColorTheme name

    ViewTab tab = ViewTab::Pipeline;
    bool select_tab = false;    // switch the tab bar to `tab` on the next frame
    std::optional<attn::ComparisonKind> compare;  // the comparison the Compare tab shows
    std::string compare_stage = "weights";
    std::optional<OpenCheck> check;  // the Check tab's: File > Check my attention code…

    std::optional<FileOutcome> last_export;
    std::optional<FileOutcome> last_session;
    std::optional<std::string> window_png;  // save the window as PNG at the end of this frame

    void show_tab(ViewTab t) {
        tab = t;
        select_tab = true;
    }
};

}  // namespace app
