#pragma once
// Patching heads from another text in the model view (Settings::patch, patch_from): the
// other text's box with its token count beside the text's, the heads patched and the way
// to stop. A tile's menu (or P over it) patches its head; activation patching as
// TransformerLens's and nnsight's notebooks do it, on the run on screen.
#include <optional>
#include <string>

#include "run/model_run.h"
#include "state/widget_rects.h"

namespace app {

struct PatchChoice {
    std::optional<std::string> patch_from;  // the box's new text ("": unset)
    bool stop = false;                      // no head patched any more
};

// `patch_from` is the box's text (Settings::patch_from); `patching` whether heads are asked
// to be patched (Settings::patch), which the run on screen may not show yet; `ids` whether
// the text is token ids (Settings::ids), which the other text then is too.
PatchChoice draw_patch_box(const attn::ModelRun& m, const std::optional<std::string>& patch_from, bool patching,
                           bool ids, WidgetRects& widgets);

// The patch text's tokens as the run's model reads them (ids where the run's text is ids),
// or -1 and why it cannot be read. Remembered for the last text.
struct PatchCount {
    long long tokens = -1;
    std::string error;
};
PatchCount patch_token_count(const attn::ModelRun& m, const std::string& text, bool ids);

}  // namespace app
