#include "views/compare_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "views/card_grid.h"
#include "views/stage_labels.h"
#include "graphics/ui_colors.h"
#include "views/wrapping.h"

namespace app {

namespace {

const attn::Stage* find_stage(const attn::Run& run, int head, const std::string& name, attn::Stage& output) {
    if (name == "output") {
        if (run.trace.output.empty()) return nullptr;
        output = attn::Stage{"output", run.trace.output[0], attn::Axis::Tokens, attn::Axis::Features,
                             attn::Scale::Signed};
        return &output;
    }
    if (const attn::Stage* s = run.trace.model.find(name)) return s;
    if (run.trace.heads.empty()) return nullptr;
    const int h = std::clamp(head, 0, static_cast<int>(run.trace.heads.size()) - 1);
    return run.trace.heads[static_cast<size_t>(h)].find(name);
}

// One scale for both sides, so equal colours mean equal numbers.
ColorScale shared_scale(const attn::Stage& a, const attn::Stage& b) {
    ColorScale sa = color_scale_for(a), sb = color_scale_for(b);
    if (sa.mode != sb.mode) return sa;
    if (sa.mode == ColorMode::Diverging) {
        const float m = std::max({std::abs(sa.lo), std::abs(sa.hi), std::abs(sb.lo), std::abs(sb.hi)});
        return ColorScale{ColorMode::Diverging, -m, m};
    }
    return ColorScale{sa.mode, std::min(sa.lo, sb.lo), std::max(sa.hi, sb.hi)};
}

// As wide as the scale of what was compared, so that a difference of 3e-8 between two
// weights looks like the nothing it is rather than filling the map's range.
ColorScale difference_scale(const attn::Matrix& d, float compared_magnitude) {
    const float m = std::max(d.size() ? d.cwiseAbs().maxCoeff() : 0.0f, compared_magnitude);
    return ColorScale{ColorMode::Diverging, -m, m};
}

std::string max_abs_text(const attn::Matrix& d) {
    char text[64];
    std::snprintf(text, sizeof text, "largest |difference| = %.3g", d.size() ? d.cwiseAbs().maxCoeff() : 0.0f);
    return text;
}

struct Card {
    std::string title;
    std::string key;
    const attn::Stage* stage;
    ColorScale scale;
    std::string note;  // under the legend
    const attn::Matrix* masked_by = nullptr;  // weights the causal mask zeroed, drawn as masked
};

// The tallest card title wrapped at `card_w`.
float title_height(const std::vector<Card>& cards, float card_w, const DrawContext& ctx) {
    float title_h = 0.0f;
    ImGui::PushFont(ctx.fonts.heading);
    for (const Card& card : cards) {
        const float lines = static_cast<float>(wrap_lines(card.title, card_w - card_gap()).size());
        title_h = std::max(title_h, lines * ImGui::GetTextLineHeight() + (lines - 1.0f) * ImGui::GetStyle().ItemSpacing.y);
    }
    ImGui::PopFont();
    return title_h;
}

// What a card draws besides its matrix at `card_w`: the title (wrapped), the legend's
// bar and labels, a note, each followed by Dear ImGui's item spacing.
float around_matrix(const std::vector<Card>& cards, float card_w, const DrawContext& ctx) {
    const float spacing = ImGui::GetStyle().ItemSpacing.y;
    const float title_h = title_height(cards, card_w, ctx);
    ImGui::PushFont(ctx.fonts.small);
    const float line = ImGui::GetTextLineHeight();
    ImGui::PopFont();
    const bool notes = std::any_of(cards.begin(), cards.end(), [](const Card& c) { return !c.note.empty(); });
    const float legend_bar = 12.0f * ctx.ui_scale;
    // The highlight's outline reaches a few pixels past the cells: keep it on screen.
    return title_h + legend_bar + line + (notes ? line : 0.0f) + spacing * (notes ? 5.0f : 4.0f) + 4.0f * ctx.ui_scale;
}

// Cards left to right, wrapping when the next one does not fit; with `fit` (focus and
// presenter mode), in the grid that puts every card on screen with the largest cells.
void draw_cards(const std::vector<Card>& cards, const attn::Run& run, const DrawContext& ctx,
                const StageMarks* marks, std::string& scroll_to, HeatmapRegistry& shown, bool fit) {
    const float avail = ImGui::GetContentRegionAvail().x;
    // Two cards a row at most, so that the numbers in the cells stay readable.
    const float side = std::clamp(avail / static_cast<float>(std::min<size_t>(cards.size(), 2)) - 60.0f * ctx.ui_scale,
                                  120.0f * ctx.ui_scale, 340.0f * ctx.ui_scale);
    struct Labels {
        std::vector<std::string> rows, cols;
    };
    std::vector<Labels> labels(cards.size());
    std::vector<MatrixRequest> requests(cards.size());
    for (size_t i = 0; i < cards.size(); ++i) {
        const Card& card = cards[i];
        const attn::Stage& s = *card.stage;
        MatrixRequest& req = requests[i];
        req.key = card.key;
        req.values = &s.value;
        req.scale = card.scale;
        req.masked_by = card.masked_by;
        labels[i].rows = axis_labels(run, s.rows, static_cast<int>(s.value.rows()));
        labels[i].cols = axis_labels(run, s.cols, static_cast<int>(s.value.cols()));
        req.row_labels = &labels[i].rows;
        req.col_labels = &labels[i].cols;
        req.max_size = ImVec2(side, side);
        req.max_cell = fit ? 200.0f : 56.0f;
        req.widen_for_values = fit;
        req.export_name = card.key.substr(card.key.find('/') + 1);
        if (marks && marks->stage == s.name) req.marks = &marks->cells;
    }
    CardGrid grid;
    float shared = 0.0f;  // the row labels' band, drawn once at the left of a row of cards
    if (fit) {
        std::vector<MatrixRequest*> all;
        for (MatrixRequest& r : requests) all.push_back(&r);
        const ImVec2 room = ImGui::GetContentRegionAvail();
        const auto around = [&](float card_w) { return around_matrix(cards, card_w, ctx); };
        grid = fit_card_grid(all, room, around, ctx);
        // The cards of a row share their rows' tokens: labelled once, at the row's left,
        // the width the other cards' labels took goes to every card's cells.
        for (int pass = 0; pass < 2 && grid.per_row > 1; ++pass) {
            MatrixRequest bare = requests[0];
            bare.row_labels = nullptr;
            shared = std::max(shared, matrix_footprint(requests[0], ctx).x - matrix_footprint(bare, ctx).x);
            for (MatrixRequest& r : requests) r.row_labels = nullptr;
            grid = fit_card_grid(all, ImVec2(room.x - shared, room.y), around, ctx);
            const size_t per_row = std::max<size_t>(grid.per_row, 1);
            for (size_t i = 0; i < cards.size(); ++i) {
                MatrixRequest& first = requests[i - i % per_row];
                if (i % per_row == 0) first.row_labels = &labels[i].rows;
                else if (requests[i].marks) first.label_marks = requests[i].marks;  // its rows named on the first
            }
        }
        if (grid.per_row <= 1) shared = 0.0f;
    }
    const float x0 = ImGui::GetCursorPosX();
    float x = 0.0f;
    for (size_t i = 0; i < cards.size(); ++i) {
        const Card& card = cards[i];
        const attn::Stage& s = *card.stage;
        const MatrixRequest& req = requests[i];
        ImGui::PushFont(ctx.fonts.heading);
        const float title_w = ImGui::CalcTextSize(card.title.c_str()).x;
        ImGui::PopFont();
        const float w = fit ? grid.card_w + (i % grid.per_row == 0 ? shared : 0.0f)
                            : std::max({matrix_footprint(req, ctx).x, title_w, kLegendMinWidth * ctx.ui_scale}) +
                                  card_gap();
        if (fit) {
            if (i % grid.per_row != 0)
                ImGui::SameLine(x0 + shared + static_cast<float>(i % grid.per_row) * grid.card_w);
        } else if (i > 0 && x + w <= avail) {
            ImGui::SameLine();
            x += w;
        } else {
            x = w;
        }
        ImGui::BeginGroup();
        if (s.name == scroll_to) {
            // SetScrollHereY would use the previous item's line, the card before this one.
            ImGui::SetScrollFromPosY(ImGui::GetCursorScreenPos().y - ImGui::GetWindowPos().y -
                                     ImGui::GetStyle().ItemSpacing.y);
            scroll_to.clear();
        }
        // Titles wrap at the card's width, at spaces only: text is never cut, nor a number
        // split; the note holds a number and keeps to one line.
        const float title_y = ImGui::GetCursorPosY();
        ImGui::PushFont(ctx.fonts.heading);
        text_wrapped_at(card.title, ImGui::GetCursorPosX() + w - card_gap());
        ImGui::PopFont();
        if (fit)  // the matrices of a row level, whatever their titles' lines
            ImGui::SetCursorPosY(std::max(ImGui::GetCursorPosY(), title_y + title_height(cards, grid.card_w, ctx) +
                                                                      ImGui::GetStyle().ItemSpacing.y));
        MatrixPlacement p = draw_matrix(req, ctx);
        p.figures = draw_legend(req.scale, p.max.x - p.min.x, ctx);
        if (!card.note.empty()) p.figures.push_back(draw_figure(card.note, w - card_gap(), ctx));
        ImGui::EndGroup();
        if (p.hovered)
            ImGui::SetTooltip("row %d, column %d: %s", p.row + 1, p.col + 1,
                              format_value(s.value(p.row, p.col), 6).c_str());
        shown[card.key] = heatmap_info(p, s.value);
    }
}

}  // namespace

void CompareView::update(const ViewState& c, const LiveRun& live) {
    const bool two_runs = c.compare && *c.compare != attn::ComparisonKind::Masking;
    if (c.compare != kind_ || (two_runs && live.run_version() != for_run_version_)) {
        // A new kind starts empty; new settings of the same kind keep the old pair on
        // screen until theirs arrive, so the view does not jump.
        if (c.compare != kind_)
            for (Side& s : sides_) s = Side{};
        kind_ = c.compare;
        for_run_version_ = live.run_version();
        for_head_ = -1;
        error_.clear();
        ++version_;
        if (two_runs && live.run()) {
            try {
                const auto pairs = attn::comparison_settings(live.run_settings(), *c.compare);
                for (size_t i = 0; i < 2 && i < pairs.size(); ++i) {
                    sides_[i].pending_label = pairs[i].first;
                    sides_[i].id = workers_[i].submit(pairs[i].second, nullptr);
                }
            } catch (const std::exception& e) {
                error_ = e.what();
            }
        }
    }
    for (size_t i = 0; i < 2; ++i)
        if (std::optional<Outcome> done = workers_[i].take(); done && done->id == sides_[i].id) {
            sides_[i].run = std::move(done->run);
            sides_[i].error = done->error;
            sides_[i].label = sides_[i].pending_label;
            ++version_;
        }
    if (kind_ == attn::ComparisonKind::Masking && live.run() &&
        (live.run_version() != for_run_version_ || live.shown_head() != for_head_)) {
        for_run_version_ = live.run_version();
        for_head_ = live.shown_head();
        ++version_;
        try {
            masking_ = attn::compare_masking(live.run()->trace.heads.at(static_cast<size_t>(for_head_)));
            error_.clear();
        } catch (const std::exception& e) {
            masking_ = attn::StageList{};
            error_ = e.what();
        }
    }
}

bool CompareView::computing() const { return workers_[0].busy() || workers_[1].busy(); }

std::string& CompareView::scroll_target(LiveRun& live) {
    // Scrolling waits for the final layout: a run still coming can move the cards.
    no_scroll_.clear();
    return live.computing() || computing() ? no_scroll_ : live.scroll_to_stage;
}

void CompareView::draw(ViewState& c, LiveRun& live, const DrawContext& ctx, const StageMarks* marks,
                       HeatmapRegistry& shown) {
    fit_ = c.focus;  // focus: the cards alone, every one on screen (F brings the choices back)
    if (!fit_) {
        ImGui::TextUnformatted("Compare:");
        for (const std::string& name : attn::comparison_names()) {
            const auto kind = attn::comparison_from_name(name);
            same_line_if_fits(radio_width(name.c_str()));
            if (ImGui::RadioButton(name.c_str(), c.compare == kind)) c.compare = kind;
        }
    }
    if (!c.compare) {
        text_wrapped("Choose what to compare: the two ways of masking (3.5.1), dropout off and on (3.5.2), "
                     "two seeds, or the multi-head wrapper against the weight-split class (3.6).");
        return;
    }
    if (!error_.empty()) {
        ImGui::TextColored(ui_color(ui_colors().error), "Cannot compare: %s", error_.c_str());
        return;
    }
    const DrawContext local{ctx.painter, ctx.cache, ctx.fonts, ctx.ui_scale, version_};
    if (*c.compare == attn::ComparisonKind::Masking) draw_masking(live, local, marks, shown);
    else draw_pair(c, live, local, marks, shown);
}

void CompareView::draw_masking(LiveRun& live, const DrawContext& ctx, const StageMarks* marks,
                               HeatmapRegistry& shown) {
    if (masking_.stages.empty() || !live.run()) return;
    if (!fit_)
        text_wrapped("%s. The book's first way zeroes the future after the softmax and renormalises each "
                     "row; the second sets future scores to −∞ before it. Same colour scale 0 to 1.",
                     head_name(*live.run(), for_head_).c_str());
    std::vector<Card> cards;
    for (const attn::Stage& s : masking_.stages) {
        const bool diff = s.name == "difference";
        cards.push_back({stage_title(s.name), "compare/" + s.name, &s,
                         diff ? difference_scale(s.value, 1.0f) : ColorScale{}, diff ? max_abs_text(s.value) : ""});
    }
    draw_cards(cards, *live.run(), ctx, marks, scroll_target(live), shown, fit_);
}

void CompareView::draw_pair(ViewState& c, LiveRun& live, const DrawContext& ctx, const StageMarks* marks,
                            HeatmapRegistry& shown) {
    for (const Side& s : sides_)
        if (!s.error.empty()) {
            ImGui::TextColored(ui_color(ui_colors().error), "%s cannot run: %s", s.label.c_str(), s.error.c_str());
            return;
        }
    if (!sides_[0].run || !sides_[1].run) {
        ImGui::TextColored(ui_color(ui_colors().busy), "computing both sides…");
        return;
    }
    const attn::Run& a = *sides_[0].run;
    const attn::Run& b = *sides_[1].run;
    // The stages both runs have, in the order of the first.
    std::vector<std::string> names;
    const auto both = [&](const std::string& n) {
        attn::Stage oa, ob;
        return find_stage(a, 0, n, oa) && find_stage(b, 0, n, ob);
    };
    for (const attn::Stage& s : a.trace.model.stages)
        if (both(s.name)) names.push_back(s.name);
    if (!a.trace.heads.empty())
        for (const attn::Stage& s : a.trace.heads[0].stages)
            if (both(s.name)) names.push_back(s.name);
    if (both("output")) names.push_back("output");
    if (std::find(names.begin(), names.end(), c.compare_stage) == names.end() && !names.empty())
        c.compare_stage = std::find(names.begin(), names.end(), "weights") != names.end() ? "weights" : names[0];

    ImGui::SetNextItemWidth(260.0f * ctx.ui_scale);
    if (!fit_ && ImGui::BeginCombo("stage", c.compare_stage.c_str())) {
        for (const std::string& n : names)
            if (ImGui::Selectable(n.c_str(), n == c.compare_stage)) c.compare_stage = n;
        ImGui::EndCombo();
    }
    const int head = live.shown_head();
    attn::Stage oa, ob;
    const attn::Stage* sa = find_stage(a, head, c.compare_stage, oa);
    const attn::Stage* sb = find_stage(b, head, c.compare_stage, ob);
    if (!sa || !sb) return;
    attn::StageList diff;
    try {
        diff = attn::difference(a, b, c.compare_stage);
    } catch (const std::exception& e) {
        ImGui::TextColored(ui_color(ui_colors().error), "No difference: %s", e.what());
    }
    const bool head_stage = !a.trace.model.find(c.compare_stage) && c.compare_stage != "output";
    const size_t d = head_stage ? static_cast<size_t>(std::clamp(head, 0, static_cast<int>(diff.stages.size()) - 1)) : 0;
    if (head_stage && !fit_)
        text_wrapped("%s; left and right share one colour scale.", head_name(a, head).c_str());
    const ColorScale scale = shared_scale(*sa, *sb);
    // As in the pipeline: a weight the mask zeroed is drawn as masked, not as a 0.
    const auto mask_of = [&](const attn::Run& r, const attn::Stage& s) -> const attn::Matrix* {
        attn::Stage unused;
        const attn::Stage* m = s.scale == attn::Scale::Probability ? find_stage(r, head, "mask", unused) : nullptr;
        return m ? &m->value : nullptr;
    };
    std::vector<Card> cards = {{sides_[0].label, "compare/left_" + c.compare_stage, sa, scale, "", mask_of(a, *sa)},
                               {sides_[1].label, "compare/right_" + c.compare_stage, sb, scale, "", mask_of(b, *sb)}};
    if (d < diff.stages.size()) {
        const attn::Stage& ds = diff.stages[d];
        cards.push_back({"difference: left − right", "compare/difference_" + c.compare_stage, &ds,
                         difference_scale(ds.value, std::max(std::abs(scale.lo), std::abs(scale.hi))),
                         max_abs_text(ds.value)});
    }
    draw_cards(cards, a, ctx, marks, scroll_target(live), shown, fit_);
}

}  // namespace app
