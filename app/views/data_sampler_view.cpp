#include "views/data_sampler_view.h"

#include <algorithm>

#include "views/control_widgets.h"
#include "views/stage_labels.h"
#include "views/wrapping.h"

namespace app {

namespace {

constexpr size_t kMaxIdsShown = 200;  // of the text's ids line; the pairs list scrolls

std::string id_list(const std::vector<int64_t>& ids, size_t limit) {
    std::string out = "[";
    for (size_t i = 0; i < std::min(ids.size(), limit); ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
    if (ids.size() > limit) out += ", …";
    return out + "]";
}

// The tokens of a window: the run's tokens at the positions the ids came from.
std::string token_list(const attn::Tokenized& t, size_t first, size_t count) {
    std::string out;
    for (size_t i = first; i < std::min(first + count, t.tokens.size()); ++i)
        out += (i > first ? " " : "") + visible_token(t.tokens[i]);
    return out;
}

}  // namespace

void DataSamplerView::update(const attn::Run& run, uint64_t run_version) {
    if (run_version == version_ && max_length == computed_max_length_ && stride == computed_stride_) return;
    version_ = run_version;
    computed_max_length_ = max_length;
    computed_stride_ = stride;
    pairs_.clear();
    error_.clear();
    try {
        pairs_ = attn::input_target_pairs(run.tokens.ids, max_length, stride);
    } catch (const std::exception& e) {
        error_ = e.what();
    }
}

void DataSamplerView::draw(const attn::Run& run, uint64_t run_version, const DrawContext& ctx,
                             WidgetRects& rects, WindowReport& report) {
    update(run, run_version);
    report = WindowReport{max_length, stride, pairs_.size(), error_};
    // The whole title where it fits; a header's label is cut, not wrapped, so a narrow
    // pane (a large UI scale) gets a shorter one. "###" keeps one ID for both.
    const char* title = "Sliding window: from text to training pairs (chapter 2)###sliding_window";
    const float room = visible_right() - ImGui::GetCursorPosX() - ImGui::GetFontSize() * 2.0f;
    for (const char* shorter : {"Sliding window (chapter 2)###sliding_window", "Sliding window###sliding_window"})
        if (ImGui::CalcTextSize(title, nullptr, true).x > room) title = shorter;
    const bool open = ImGui::CollapsingHeader(title);
    rects.record("window_header");
    if (!open) return;

    const attn::Tokenized& t = run.tokens;
    text_wrapped("ids (%zu): %s", t.ids.size(), id_list(t.ids, kMaxIdsShown).c_str());
    // Two sliders side by side: captions on one line, the sliders on the next, so they align.
    const float slider_w = std::min(300.0f * ctx.ui_scale, ImGui::GetContentRegionAvail().x * 0.45f);
    const float second_x = ImGui::GetCursorPosX() + slider_w + ImGui::GetStyle().ItemSpacing.x * 2.0f;
    caption("max_length (input tokens)");
    ImGui::SameLine(second_x);
    caption("stride (step between windows)");
    ImGui::SetNextItemWidth(slider_w);
    ImGui::SliderInt("##window_max_length", &max_length, 1, 256, "%d", ImGuiSliderFlags_Logarithmic);
    rects.record("window_max_length");
    ImGui::SameLine(second_x);
    ImGui::SetNextItemWidth(slider_w);
    ImGui::SliderInt("##window_stride", &stride, 1, 256, "%d", ImGuiSliderFlags_Logarithmic);
    rects.record("window_stride");

    if (!error_.empty()) {
        ImGui::TextColored(ui_color(ui_colors().error), "%s", error_.c_str());
        return;
    }
    if (pairs_.empty()) {
        text_wrapped("No pairs: the text has %zu tokens, and a pair needs max_length + 1 = %d.", t.ids.size(),
                     max_length + 1);
        return;
    }
    text_wrapped("%zu pairs. x is the model's input, y the target: the same window shifted one token to the "
                 "right, so each position learns to predict the next token.",
                 pairs_.size());
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float item_h = line * 2.0f;
    const float height = std::min(static_cast<float>(pairs_.size()), 5.0f) * item_h + line * 0.5f;
    ImGui::BeginChild("window_pairs", ImVec2(0.0f, height), true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(pairs_.size()), item_h);
    while (clipper.Step())
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const attn::InputTargetPair& p = pairs_[static_cast<size_t>(i)];
            const size_t start = static_cast<size_t>(i) * static_cast<size_t>(stride);
            ImGui::Text("x: %s  →  y: %s", id_list(p.input, p.input.size()).c_str(),
                        id_list(p.target, p.target.size()).c_str());
            ImGui::TextDisabled("    \"%s\"  →  \"%s\"", token_list(t, start, p.input.size()).c_str(),
                                token_list(t, start + 1, p.target.size()).c_str());
        }
    ImGui::EndChild();
}

}  // namespace app
