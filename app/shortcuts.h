#pragma once
// Keyboard shortcuts for the front of a classroom, active whenever no text field has
// the keyboard, and the overlay that lists them (? key). Ctrl+Q is main's: it quits
// even from a text field.
#include "panels/file_dialog.h"
#include "views/matrix_widget.h"

namespace app {

void handle_shortcuts(AppContext& app, FileDialog& dialog);
void draw_help_overlay(ViewState& c, const DrawContext& ctx);

}  // namespace app
