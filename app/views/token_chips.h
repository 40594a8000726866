#pragma once
// Tokens as chips: the token with its id under it, special tokens and <|unk|> in
// their own colours and with a label, and GPT-2's sub-word pieces of one word drawn
// touching with a bracket under them, so "someunknownPlace" visibly becomes
// "␣some" "unknown" "Place". Hovering a chip tells its id, bytes and word; a model's
// chips also pick the position whose next tokens are shown (ChipPick).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "views/matrix_widget.h"
#include "text/tokenizer_table.h"
#include "state/widget_rects.h"
#include "state/frame_report.h"

namespace app {

// A 4096-token text would fill the screen and cost frames: only this many are drawn.
constexpr size_t kMaxChips = 512;

// Chips the user picks one of (a model's next-token position): `marked` is drawn framed,
// and the tooltips say what a click does.
struct ChipPick {
    size_t marked = 0;
    const char* click_hint = "";   // on the other chips
    const char* marked_hint = "";  // on the marked one
};

// `tokenizer` (null: ids given, no tokenizer) and `text` are those the tokens came from: the hover names the word
// behind an <|unk|> and the bytes of a GPT-2 piece. Appends one ChipInfo per chip drawn.
// With `pick`, returns the index of the chip clicked this frame, if any.
std::optional<size_t> draw_token_chips(const char* caption, const attn::Tokenized& t, const attn::TokenizerRow* tokenizer,
                                       const std::string& text, const DrawContext& ctx, std::vector<ChipInfo>& shown,
                                       const ChipPick* pick = nullptr);

}  // namespace app
