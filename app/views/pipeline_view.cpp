#include "views/pipeline_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attention/variant_notes.h"
#include "views/cell_details.h"
#include "graphics/ui_colors.h"
#include "views/stage_labels.h"
#include "views/wrapping.h"

namespace app {

namespace {

bool is_token_by_token(const attn::Stage& s) {
    return s.rows == attn::Axis::Tokens && (s.cols == attn::Axis::Tokens || s.cols == attn::Axis::KeyTokens);
}

bool is_wide_embedding(const attn::Stage& s) {
    const bool embedding = s.name == "token_embeddings" || s.name == "pos_embeddings" || s.name == "inputs" ||
                           s.name == "inputs2";
    return embedding && s.value.cols() > 64;
}

// Weights that are 0 because of the mask are drawn as masked, like their -inf scores.
const attn::Matrix* mask_for(const PipelineCard& card) {
    if (!card.head || card.stage->scale != attn::Scale::Probability) return nullptr;
    const attn::Stage* mask = card.head->find("mask");
    return mask ? &mask->value : nullptr;
}

float card_width(const MatrixRequest& req, const std::string& heading, const DrawContext& ctx) {
    ImGui::PushFont(ctx.fonts.heading);
    const float title = ImGui::CalcTextSize(heading.c_str()).x;
    ImGui::PopFont();
    // A title longer than the pane wraps rather than widening the card past it.
    const float seen = visible_right() - ImGui::GetCursorPosX();
    return std::max({matrix_footprint(req, ctx).x, kLegendMinWidth * ctx.ui_scale, std::min(title, seen)});
}

}  // namespace

MatrixRequest request_for(const attn::Run& run, const PipelineCard& card, const std::string& key, const DrawContext& ctx,
                          ViewMemo& memo) {
    const attn::Stage& s = *card.stage;
    const float side = (is_token_by_token(s) ? 340.0f : 240.0f) * ctx.ui_scale;
    MatrixRequest req;
    req.key = key;
    req.values = &s.value;
    req.masked_by = mask_for(card);
    req.scale = memo.scale(s, ctx.run_version);
    req.row_labels = &memo.labels(run, s.rows, static_cast<int>(s.value.rows()), ctx.run_version);
    req.col_labels = &memo.labels(run, s.cols, static_cast<int>(s.value.cols()), ctx.run_version);
    req.max_size = ImVec2(side, side);
    req.max_cell = is_token_by_token(s) ? 56.0f : 48.0f;
    if (is_wide_embedding(s)) {
        // A d_in = 768 embedding squeezed into a square loses its token rows: it gets
        // the line's width (about a pixel per feature) and rows tall enough to label.
        const float rows = static_cast<float>(s.value.rows());
        req.max_size = ImVec2(ImGui::GetContentRegionAvail().x - 130.0f * ctx.ui_scale,
                              std::clamp(rows * 18.0f * ctx.ui_scale, side, 3.0f * side));
        req.show_values = false;
    }
    return req;
}

void cell_tooltip(const attn::Run& run, const PipelineCard& card, const MatrixPlacement& p, const DrawContext& ctx) {
    if (!p.hovered) return;
    ImGui::BeginTooltip();
    ImGui::PushFont(ctx.fonts.body);
    for (const std::string& line : explain_cell(run, card.head, *card.stage, p.row, p.col))
        ImGui::TextUnformatted(line.c_str());
    ImGui::PopFont();
    ImGui::EndTooltip();
}

// A thumbnail's, or a block mean's: which tokens the cell covers, and how to see more.
void preview_tooltip(const std::string& label, const MatrixPlacement& p, int factor, const attn::Matrix& m) {
    if (factor <= 1 || p.row < 0 || p.col < 0 || p.row >= m.rows() || p.col >= m.cols()) {
        ImGui::SetTooltip("%s: click to show it", label.c_str());
        return;
    }
    const float v = m(p.row, p.col);
    char mean[48] = "all masked";
    if (!std::isinf(v)) std::snprintf(mean, sizeof mean, "mean weight %.5f", static_cast<double>(v));
    ImGui::SetTooltip("%s: queries %d-%d, keys %d-%d: %s\n(means of %d x %d blocks: this run is too long to keep "
                      "every head's weights; click to show this head's)",
                      label.c_str(), p.row * factor + 1, (p.row + 1) * factor, p.col * factor + 1,
                      (p.col + 1) * factor, mean, factor, factor);
}

void record(HeatmapRegistry& shown, const std::string& name, const MatrixPlacement& p, const attn::Matrix& m) {
    shown[name] = heatmap_info(p, m);
}

attn::Stage output_stage(const attn::Trace& t) {
    return {"output", t.output.empty() ? attn::Matrix() : t.output[0], attn::Axis::Tokens, attn::Axis::Features,
            attn::Scale::Signed};
}

std::vector<PipelineCard> pipeline_cards(const attn::Trace& t, int head, const attn::Stage& output) {
    const attn::HeadTrace* h = t.heads.empty() ? nullptr : &t.heads[static_cast<size_t>(head)];
    std::vector<PipelineCard> cards;
    for (const attn::Stage& s : t.model.stages)
        if (!follows_heads(s.name)) cards.push_back({&s, nullptr});
    if (h)
        for (const attn::Stage& s : h->stages) cards.push_back({&s, h});
    for (const attn::Stage& s : t.model.stages)
        if (follows_heads(s.name)) cards.push_back({&s, nullptr});
    if (output.value.size() > 0) cards.push_back({&output, nullptr});
    return cards;
}

void ViewMemo::forget_older_than(uint64_t run_version) {
    if (run_version == version_) return;
    scales_.clear();
    labels_.clear();
    version_ = run_version;
}

const ColorScale& ViewMemo::scale(const attn::Stage& stage, uint64_t run_version) {
    forget_older_than(run_version);
    const auto it = scales_.find(&stage.value);
    if (it != scales_.end()) return it->second;
    return scales_[&stage.value] = color_scale_for(stage);
}

const std::vector<std::string>& ViewMemo::labels(const attn::Run& run, attn::Axis axis, int count,
                                                 uint64_t run_version) {
    forget_older_than(run_version);
    const auto key = std::make_pair(static_cast<int>(axis), count);
    const auto it = labels_.find(key);
    if (it != labels_.end()) return it->second;
    return labels_[key] = axis_labels(run, axis, count);
}

std::optional<int> draw_head_strip(const attn::Run& run, int shown_head, const DrawContext& ctx, HeatmapRegistry& shown,
                                   bool thumbnails) {
    const auto& heads = run.trace.heads;
    const int n = static_cast<int>(heads.size());
    const float gap = ImGui::GetStyle().ItemSpacing.x * (thumbnails ? 1.0f : 2.0f);
    const float avail = ImGui::GetContentRegionAvail().x;
    float side = 0.0f;
    if (thumbnails) {  // one row of small squares to switch head, the stage above them
        side = std::clamp((avail - gap * static_cast<float>(n)) / static_cast<float>(n), 12.0f * ctx.ui_scale,
                          28.0f * ctx.ui_scale);
    } else {
        ImGui::PushFont(ctx.fonts.heading);
        text_wrapped("Every head's weights (%d heads, same scale 0 to 1): click one to follow it below", n);
        ImGui::PopFont();
        // What today's variants change, in one line each (attention/variant_notes.h).
        for (const std::string& line : {attn::head_groups_line(run.trace), attn::kv_cache_line(run.trace)})
            if (!line.empty()) text_wrapped("%s", line.c_str());
        // As few rows as keep each head at least ~100 px (a projected 12-head strip in one
        // row is too small to read), the rows balanced: 12 heads go 6 + 6, not 8 + 4.
        const float min_side = 96.0f * ctx.ui_scale;
        const int fit = std::max(1, static_cast<int>((avail + gap) / (min_side + gap)));
        const int rows = (n + fit - 1) / fit;
        const int per_row = (n + rows - 1) / rows;
        side = std::clamp((avail - gap * static_cast<float>(per_row)) / static_cast<float>(per_row),
                          24.0f * ctx.ui_scale, 200.0f * ctx.ui_scale);
    }
    // A long run keeps every stage of the shown head only (LiveRun): its mask, the same
    // for every head, draws the others' masked weights as masked too.
    const attn::Matrix* shared_mask = nullptr;
    for (const attn::HeadTrace& head : heads)
        if (const attn::Stage* m = head.find("mask"); m && !shared_mask) shared_mask = &m->value;
    float x = 0.0f;
    std::optional<int> clicked;
    const auto& previews = run.trace.weights_previews;
    for (int h = 0; h < n; ++h) {
        const attn::Stage* w = heads[static_cast<size_t>(h)].find("weights");
        // A run too long for every head's weights keeps the others' block means.
        const attn::Matrix* preview = !w && static_cast<size_t>(h) < previews.size() && previews[static_cast<size_t>(h)].size()
                                          ? &previews[static_cast<size_t>(h)]
                                          : nullptr;
        if (!w && !preview) continue;
        const std::string group = attn::head_group_label(run.trace, h);
        const std::string label =
            head_name(run, h) + (group.empty() ? "" : " · " + group) + (h == shown_head ? " ◀ shown" : "");
        // A caption wider than its heatmap widens the group: wrap on what is drawn.
        const float group_w = thumbnails ? side : std::max(side, ImGui::CalcTextSize(label.c_str()).x);
        if (h > 0 && x + group_w <= avail) ImGui::SameLine(0.0f, gap);
        else if (h > 0) x = 0.0f;
        x += group_w + gap;
        ImGui::BeginGroup();
        if (!thumbnails) ImGui::TextUnformatted(label.c_str());
        MatrixRequest req;
        req.key = "heads/" + std::to_string(h);
        req.values = w ? &w->value : preview;
        req.masked_by = w ? shared_mask : nullptr;  // a preview's masked blocks are -inf
        req.scale = ColorScale{ColorMode::Sequential, 0.0f, 1.0f};
        req.max_size = ImVec2(side, side);
        req.max_cell = 40.0f;
        req.show_values = false;
        req.row_labels = req.col_labels = nullptr;
        req.highlight = h == shown_head;
        req.export_name = head_file_name(run, h) + (w ? "_weights" : "_weights_block_means");
        const MatrixPlacement p = draw_matrix(req, ctx);
        ImGui::EndGroup();
        if (p.clicked) clicked = h;
        if (w && !thumbnails) cell_tooltip(run, PipelineCard{w, &heads[static_cast<size_t>(h)]}, p, ctx);
        else if (p.hovered) preview_tooltip(label, p, w ? 1 : run.trace.preview_factor, *req.values);
        record(shown, req.key, p, *req.values);
    }
    if (!thumbnails) {
        ImGui::Spacing();
        draw_legend(ColorScale{}, std::min(side * 2.0f, 300.0f * ctx.ui_scale), ctx);
    }
    return clicked;
}

// ImGui clamps a scroll to the content height of the frame before, so when the view has
// just grown (a lesson step's model run arriving under a shorter view) one request falls
// short: it stays until the card is there, the view can scroll no further, or 30 frames passed.
void scroll_to_card(std::string& scroll_to, ViewMemo& memo) {
    // SetScrollHereY would use the previous item's line, the card before this one; ratio 0
    // puts the card's top at the view's top (the default 0.5 centres it, which left a
    // lesson's highlighted matrix below the fold).
    const float top = ImGui::GetCursorScreenPos().y - ImGui::GetWindowPos().y - ImGui::GetStyle().ItemSpacing.y;
    const bool at_bottom = top > 0.0f && ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 0.5f;
    if (std::fabs(top) < 1.5f || (at_bottom && memo.scroll_frames > 2) || ++memo.scroll_frames > 30) {
        scroll_to.clear();
        memo.scroll_frames = 0;
        return;
    }
    ImGui::SetScrollFromPosY(top, 0.0f);
}

void draw_pipeline(const attn::Run& run, int head, const DrawContext& ctx, ViewMemo& memo, std::string& scroll_to,
                   HeatmapRegistry& shown, const StageMarks* marks) {
    const attn::Stage output = output_stage(run.trace);
    const std::vector<PipelineCard> cards = pipeline_cards(run.trace, head, output);
    if (!run.trace.heads.empty() && !run.trace.kept.keeps(head, "scores") && !run.model)  // a model says its own
        text_wrapped_colored(ui_color(ui_colors().busy),
                             "Head %d: its %s for now; its other stages are being computed (a run this long keeps "
                             "every stage of one head at a time).",
                             head + 1,
                             run.trace.kept.keeps(head, "weights") ? "weights and values" : "values (its weights in the strip above, as block means)");

    const float avail = ImGui::GetContentRegionAvail().x;
    const float arrow_w = 40.0f * ctx.ui_scale;
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    float x = 0.0f;
    for (size_t i = 0; i < cards.size(); ++i) {
        const PipelineCard& card = cards[i];
        const attn::Stage& s = *card.stage;
        if (s.value.size() == 0) continue;
        MatrixRequest req = request_for(run, card, (card.head ? "pipeline/" : "model/") + s.name, ctx, memo);
        req.export_name = card.head ? head_file_name(run, head) + "_" + s.name : s.name;
        if (marks && marks->stage == s.name) {
            req.marks = &marks->cells;
            req.highlight = true;
        }
        // With positions on, X is the sum of the two cards before it.
        const bool sum = s.name == "inputs" && i > 0 && cards[i - 1].stage->name == "pos_embeddings";
        const std::string heading =
            std::to_string(i + 1) + "  " + (sum ? "X = token + position  inputs" : stage_title(s.name, run.trace));
        const float w = card_width(req, heading, ctx);
        if (i > 0 && x + arrow_w + w <= avail) {
            ImGui::SameLine(0.0f, 0.0f);
            ImGui::PushFont(ctx.fonts.heading);
            ImGui::SetCursorPosX(ImGui::GetCursorPosX() + gap);
            ImGui::TextUnformatted("→");  // the flow continues to the right
            ImGui::PopFont();
            ImGui::SameLine(0.0f, gap);
            x += arrow_w + w;
        } else {
            if (i > 0) ImGui::Separator();  // the flow continues on the next line
            x = w;
        }
        ImGui::BeginGroup();
        if (s.name == scroll_to) scroll_to_card(scroll_to, memo);
        ImGui::PushFont(ctx.fonts.heading);
        text_wrapped_at(heading, ImGui::GetCursorPosX() + w);
        ImGui::PopFont();
        ImGui::PushFont(ctx.fonts.small);
        ImGui::TextDisabled("%d × %d", static_cast<int>(s.value.rows()), static_cast<int>(s.value.cols()));
        ImGui::PopFont();
        MatrixPlacement p = draw_matrix(req, ctx);
        p.figures = draw_legend(req.scale, p.max.x - p.min.x, ctx);
        ImGui::EndGroup();
        if (ImGui::IsItemHovered() && !p.hovered && !stage_explanation(s.name).empty())
            ImGui::SetTooltip("%s", stage_explanation(s.name).c_str());
        cell_tooltip(run, card, p, ctx);
        record(shown, s.name, p, s.value);
    }
}

}  // namespace app
