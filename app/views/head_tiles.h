#pragma once
// What a tile of the model view's layer x head grid offers besides its pipeline: its
// right-click menu's items and keys that switch its head off (X) or patch it from the
// other text (P), and whether the run on screen has it so.
#include <functional>

#include "run/model_run.h"
#include "views/matrix_widget.h"
#include "views/model_view.h"

namespace app {

bool is_off(const attn::ModelRun& m, int layer, int head);
bool is_patched(const attn::ModelRun& m, int layer, int head);
// The tile's own items in its right-click menu (above the exports): switch the head off or
// back on (not while heads are patched), patch it or stop (`can_patch`: the patch box holds
// a text; not while heads are off), show its pipeline.
std::function<void()> tile_menu(const attn::ModelRun& m, int layer, int head, bool can_patch, WidgetRects& widgets,
                                ModelViewChoice& choice);
// X while the pointer is over a tile switches its head, P patches it, as the menu's items do.
void tile_key(int layer, int head, const MatrixPlacement& p, ModelViewChoice& choice);

}  // namespace app
