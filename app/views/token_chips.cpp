#include "views/token_chips.h"

#include <algorithm>
#include <cstdio>

#include "text/gpt2_tokenizer.h"
#include "text/simple_tokenizer.h"
#include "views/stage_labels.h"
#include "graphics/ui_colors.h"

namespace app {

namespace {

std::string hex_bytes(const std::string& bytes) {
    std::string out;
    char buf[4];
    for (const unsigned char b : bytes) {
        std::snprintf(buf, sizeof buf, "%02x", b);
        if (!out.empty()) out += ' ';
        out += buf;
    }
    return out;
}

// Rows of chips shown before the chips scroll in a box of their own.
constexpr float kMaxChipRows = 4.0f;

struct Chip {
    ChipInfo info;
    std::string shown;  // visible_token(text)
    std::string label;  // under the token: the id, and what a special chip is
    float width = 0.0f;
    float x = 0.0f, y = 0.0f;                 // from the top left of the chips
    size_t group_begin = 0, group_end = 0;    // the chips of its word: [begin, end)
};

struct ChipMetrics {  // in pixels at the UI scale
    float pad, gap, bracket, row_gap, text_h, id_h;
    float chip_height() const { return text_h + id_h + pad * 1.5f; }
    float row_height() const { return chip_height() + bracket + row_gap; }
};

Chip make_chip(const attn::Tokenized& t, size_t i, const attn::TokenizerRow* tokenizer) {
    Chip c;
    c.info.text = t.tokens[i];
    c.info.id = t.ids[i];
    const bool marked = i < t.special.size() && t.special[i];
    c.info.unk = marked && tokenizer && tokenizer->marks_unknown && t.tokens[i] == attn::SimpleTokenizerV2::kUnknown;
    c.info.special = marked && !c.info.unk;
    c.info.word = i < t.word.size() ? t.word[i] : -1;
    c.shown = visible_token(t.tokens[i]);
    c.label = std::to_string(t.ids[i]) + (c.info.special ? "  special" : c.info.unk ? "  unknown" : "");
    return c;
}

// The tooltip of chip i: its id, bytes, and the word it is (part of).
void chip_tooltip(const attn::Tokenized& t, size_t i, size_t group_begin, size_t group_end, const Chip& chip,
                  const attn::TokenizerRow* tokenizer, const std::string& text, const ChipPick* pick) {
    ImGui::BeginTooltip();
    ImGui::Text("token %zu: \"%s\"", i + 1, chip.shown.c_str());
    ImGui::Text("id %lld", static_cast<long long>(chip.info.id));
    if (tokenizer && tokenizer->kind == attn::TokenizerKind::Gpt2) {
        ImGui::Text("bytes: %s", hex_bytes(std::string(attn::gpt2_tokenizer().token_bytes(chip.info.id))).c_str());
        if (chip.info.special) {
            ImGui::TextUnformatted("special token: marks where one text ends and the next begins");
        } else if (group_end - group_begin > 1) {
            std::string word;
            for (size_t k = group_begin; k < group_end; ++k) word += attn::gpt2_tokenizer().token_bytes(t.ids[k]);
            ImGui::Text("piece %zu of %zu of the word \"%s\"", i - group_begin + 1, group_end - group_begin,
                        visible_token(word).c_str());
            ImGui::TextUnformatted("(GPT-2 had no single token for it, so BPE split it)");
        } else {
            ImGui::TextUnformatted("a whole word: one token of GPT-2's vocabulary");
        }
    } else {
        ImGui::Text("bytes: %s", hex_bytes(chip.info.text).c_str());
        if (chip.info.unk) {
            // SimpleTokenizerV2 maps each piece of its split to one token, in order.
            const std::vector<std::string> pieces = attn::SimpleTokenizerV2::split(text);
            const std::string word = i < pieces.size() && pieces.size() == t.tokens.size() ? pieces[i] : "?";
            ImGui::Text("the word \"%s\" is not in the vocabulary, so it became <|unk|>", word.c_str());
        } else if (chip.info.special) {
            ImGui::TextUnformatted("special token: marks where one text ends and the next begins");
        }
    }
    if (pick) {  // positions count from 0, as --next-at's (the line above counts tokens from 1)
        ImGui::Separator();
        ImGui::Text("position %zu: %s", i, i == pick->marked ? pick->marked_hint : pick->click_hint);
    }
    ImGui::EndTooltip();
}

// Places the chips in lines `width` wide, in groups: the pieces of one word (GPT-2),
// else one token. A word moves to the next line whole unless it is wider than a line.
// Returns the height of the lines.
float lay_out(std::vector<Chip>& chips, float width, const ChipMetrics& m) {
    float x = 0.0f, y = 0.0f;
    for (size_t begin = 0; begin < chips.size();) {
        size_t end = begin + 1;
        while (end < chips.size() && chips[begin].info.word >= 0 && chips[end].info.word == chips[begin].info.word)
            ++end;
        float group_w = 0.0f;
        for (size_t k = begin; k < end; ++k) group_w += chips[k].width;
        if (x > 0.0f && x + group_w > width) {
            x = 0.0f;
            y += m.row_height();
        }
        for (size_t k = begin; k < end; ++k) {
            Chip& c = chips[k];
            if (x > 0.0f && x + c.width > width) {
                x = 0.0f;
                y += m.row_height();
            }
            c.x = x;
            c.y = y;
            c.group_begin = begin;
            c.group_end = end;
            x += c.width;
        }
        x += m.gap;
        begin = end;
    }
    return chips.empty() ? 0.0f : y + m.row_height();
}

}  // namespace

std::optional<size_t> draw_token_chips(const char* caption, const attn::Tokenized& t, const attn::TokenizerRow* tokenizer,
                                       const std::string& text, const DrawContext& ctx, std::vector<ChipInfo>& shown,
                                       const ChipPick* pick) {
    const size_t count = std::min(t.tokens.size(), kMaxChips);
    const float s = ctx.ui_scale;
    const ChipMetrics m{5.0f * s, 7.0f * s, 7.0f * s, 4.0f * s, ImGui::GetTextLineHeight(), ctx.fonts.small->FontSize};

    std::vector<Chip> chips;
    chips.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        Chip c = make_chip(t, i, tokenizer);
        ImGui::PushFont(ctx.fonts.small);
        const float label_w = ImGui::CalcTextSize(c.label.c_str()).x;
        ImGui::PopFont();
        c.width = std::max(ImGui::CalcTextSize(c.shown.c_str()).x, label_w) + m.pad * 2.0f;
        chips.push_back(std::move(c));
    }

    // A long text keeps its chips in a box of a few rows that scrolls, so that the
    // heatmaps below stay on the first screen.
    const float width = std::max(ImGui::GetContentRegionAvail().x, 100.0f * s);
    const float max_height = kMaxChipRows * m.row_height();
    float height = lay_out(chips, width, m);
    const bool scrolls = height > max_height;
    if (scrolls) height = lay_out(chips, width - ImGui::GetStyle().ScrollbarSize, m);
    ImGui::Text(scrolls ? "%s (%zu, scroll the box to see them all):" : "%s (%zu):", caption, t.tokens.size());
    if (scrolls) ImGui::BeginChild(ImGui::GetID(caption), ImVec2(width, max_height));

    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const bool window_hovered = ImGui::IsWindowHovered();
    const float rounding = 6.0f * s;
    const UiColors& ui = ui_colors();
    const ImU32 bracket = ui_color32(ui.word_bracket);
    std::optional<size_t> clicked;
    for (size_t k = 0; k < count; ++k) {
        Chip& c = chips[k];
        const ImVec2 a(origin.x + c.x, origin.y + c.y), b(a.x + c.width, a.y + m.chip_height());
        const bool alone = c.group_end - c.group_begin == 1;
        const ImDrawFlags corners = alone                  ? ImDrawFlags_RoundCornersAll
                                    : k == c.group_begin   ? ImDrawFlags_RoundCornersLeft
                                    : k + 1 == c.group_end ? ImDrawFlags_RoundCornersRight
                                                           : ImDrawFlags_RoundCornersNone;
        const ImU32 fill = ui_color32(c.info.special ? ui.special_fill : c.info.unk ? ui.unknown_fill : ui.chip_fill);
        const ImU32 border =
            ui_color32(c.info.special ? ui.special_border : c.info.unk ? ui.unknown_border : ui.chip_border);
        dl->AddRectFilled(a, b, fill, rounding, corners);
        dl->AddRect(a, b, border, rounding, corners, c.info.special || c.info.unk ? 2.0f * s : 1.0f);
        dl->AddText(ImVec2(a.x + m.pad, a.y + m.pad * 0.5f), IM_COL32(0, 0, 0, 255), c.shown.c_str());
        dl->AddText(ctx.fonts.small, m.id_h, ImVec2(a.x + m.pad, b.y - m.id_h - m.pad * 0.5f),
                    c.info.special || c.info.unk ? border : ui_color32(ui.chip_id), c.label.c_str());
        c.info.marked = pick && k == pick->marked;
        if (c.info.marked)  // framed as the selected head's matrix is
            dl->AddRect(ImVec2(a.x - 2.0f * s, a.y - 2.0f * s), ImVec2(b.x + 2.0f * s, b.y + 2.0f * s),
                        ui_color32(ui.stage_frame), rounding, ImDrawFlags_RoundCornersAll, 3.0f * s);
        c.info.rect = {a.x, a.y, b.x, b.y};
        if (window_hovered && ImGui::IsMouseHoveringRect(a, b)) {
            chip_tooltip(t, k, c.group_begin, c.group_end, c, tokenizer, text, pick);
            if (pick && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) clicked = k;
        }

        const Chip& first = chips[c.group_begin];
        if (!alone && k + 1 == c.group_end && c.y == first.y) {  // the bracket that says "one word"
            const float by = origin.y + c.y + m.chip_height() + m.bracket * 0.6f;
            const float x0 = origin.x + first.x + 3.0f * s, x1 = b.x - 3.0f * s;
            dl->AddLine(ImVec2(x0, by), ImVec2(x1, by), bracket, 1.5f * s);
            dl->AddLine(ImVec2(x0, by), ImVec2(x0, by - m.bracket * 0.5f), bracket, 1.5f * s);
            dl->AddLine(ImVec2(x1, by), ImVec2(x1, by - m.bracket * 0.5f), bracket, 1.5f * s);
        }
    }
    ImGui::Dummy(ImVec2(width, height));
    if (scrolls) ImGui::EndChild();
    for (Chip& c : chips) shown.push_back(std::move(c.info));
    if (count < t.tokens.size())
        ImGui::TextDisabled("… and %zu more tokens: only the first %zu chips are drawn", t.tokens.size() - count,
                            count);
    return clicked;
}

}  // namespace app
