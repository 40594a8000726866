#pragma once
// A GPT model's run: the next tokens after the last position, or one the user picks, as
// bars, with a button that appends the most likely one after the last to the text; then
// (BertViz's model view) every layer x head's attention weights as a tile, one colour
// scale (0 to 1), each labelled with its strongest head-type score; a click selects the
// head whose pipeline is drawn below. A tile's context menu (right click) or X over it
// switches its head off (Settings::ablate) and back on, P patches it from another text
// (patch_view.h); changed tiles are marked, and the next tokens show the run without the
// change beside. Between them, the patch box (patch_view.h), the logit lens
// (logit_lens_view.h), the logit's parts (attribution_view.h) and which heads matter
// (head_effects_view.h).
// The appended tokens are chosen as the run's sampling settings say (temperature 0: the
// most likely; else sampled as chapter 5's generate, one random stream across runs).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "run/model_run.h"
#include "state/frame_report.h"
#include "views/matrix_widget.h"
#include "views/patch_view.h"

namespace app {

struct ModelViewChoice {
    std::optional<std::pair<int, int>> select;  // (layer, head) clicked
    bool append = false;                        // one more generated token (Settings::generate)
    int generate = 0;                           // tokens to generate, one run each
    bool stop = false;                          // stop generating
    bool clear = false;                         // drop the generated tokens
    bool next_at_last = false;                  // the next tokens after the last token again
    std::optional<std::pair<int, int>> switch_head;  // (layer, head) to switch off, or back on
    bool all_heads_on = false;                  // every switched-off head back on
    std::optional<std::pair<int, int>> patch_head;  // (layer, head) to patch, or stop patching
    PatchChoice patch;                          // the patch box's text, or stop patching
    std::optional<bool> logit_lens;             // the logit lens's checkbox clicked
    std::optional<std::string> attribute;       // Settings::attribute's new value ("": unset)
    std::optional<std::string> head_effects;    // Settings::head_effects's new value ("": unset)
};

// What the controls ask the view to show besides the run (Settings::logit_lens, attribute).
struct ModelViewAsked {
    bool logit_lens = false;
    std::optional<std::string> attribute;
    std::optional<std::string> patch, patch_from;  // Settings::patch, patch_from
    std::optional<std::string> head_effects;       // Settings::head_effects
    bool ids = false;                              // the text is token ids (Settings::ids)
};

// `run` is the layer view (its model is non-null); `layer` and `head` are shown.
// `generating`: tokens still to generate (the button then stops it). `next_at`: the
// position the controls ask the next tokens after (Settings::next_at; the token chips
// pick it).
ModelViewChoice draw_model_view(const attn::Run& run, int layer, int head, int generating, std::optional<int> next_at,
                                const ModelViewAsked& asked, const DrawContext& ctx, HeatmapRegistry& shown,
                                WidgetRects& widgets);

}  // namespace app
