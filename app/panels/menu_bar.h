#pragma once
// The main menu bar: File (exports, PyTorch, sessions), Lessons (every lesson by book
// section, and the files that failed to load with their error) and View (presenter
// mode, colour theme, comparisons, shortcuts).
#include "panels/file_dialog.h"
#include "state/widget_rects.h"

namespace app {

void draw_menu_bar(AppContext& app, FileDialog& dialog, WidgetRects& widgets, bool& quit);

}  // namespace app
