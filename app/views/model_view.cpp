#include "views/model_view.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "attention/attention.h"
#include "graphics/ui_colors.h"
#include "run/run_cache_size.h"
#include "views/attribution_view.h"
#include "views/head_effects_view.h"
#include "views/head_tiles.h"
#include "views/logit_lens_view.h"
#include "run/switched_off.h"
#include "views/pipeline_view.h"
#include "views/stage_labels.h"
#include "views/wrapping.h"

namespace app {

namespace {

// A head type is named on its tile when it takes at least this share of the attention,
// and this much more than a head attending uniformly would give it on the same tokens.
constexpr double kTypeThreshold = 0.4;
constexpr double kAboveChance = 0.2;

double score_of(const attn::HeadScores& s, attn::HeadType type) {
    switch (type) {
    case attn::HeadType::PreviousToken: return s.previous_token;
    case attn::HeadType::DuplicateToken: return s.duplicate_token;
    case attn::HeadType::Induction: return s.induction_stripe;  // as dominant_type weighs it
    case attn::HeadType::FirstToken: return s.first_token;
    }
    return 0.0;
}

// triu(ones, 1): every tile's mask (the model is causal), made once per length.
const attn::Matrix& causal_mask(Eigen::Index T) {
    static attn::Matrix mask;
    if (mask.rows() != T) mask = attn::causal_mask(static_cast<int>(T), static_cast<int>(T));
    return mask;
}

std::string tile_caption(int layer, int head, const attn::HeadScores& s, const attn::HeadScores& chance) {
    std::string caption = attn::layer_head(layer, head);
    const std::optional<attn::HeadType> type = attn::dominant_type(s, kTypeThreshold);
    if (type && score_of(s, *type) >= score_of(chance, *type) + kAboveChance) {
        char text[32];
        std::snprintf(text, sizeof text, " %s %.2f", attn::head_type_short(*type), score_of(s, *type));
        caption += text;
    }
    return caption;
}

// A grouped-query model's key/value heads, 0-based as its tiles are: "query heads 0–2
// share key/value head 0, 3–5 head 1, 6–8 head 2"; "" when every head has its own.
std::string kv_groups_line(const std::vector<int>& groups) {
    if (groups.empty() || groups.back() + 1 == static_cast<int>(groups.size())) return "";
    if (groups.back() == 0) return "Multi-query attention: every query head reads key/value head 0.";
    std::string out;
    for (size_t first = 0; first < groups.size();) {
        size_t last = first;
        while (last + 1 < groups.size() && groups[last + 1] == groups[first]) ++last;
        const std::string heads = std::to_string(first) + (last > first ? "–" + std::to_string(last) : "");
        const std::string kv = std::to_string(groups[first]);
        out += out.empty() ? "Grouped-query attention: query heads " + heads + " share key/value head " + kv
                           : ", " + heads + " head " + kv;
        first = last + 1;
    }
    return out + ". A wider gap separates the groups.";
}

void tile_tooltip(const attn::Run& run, int layer, int head, const attn::HeadScores& s, const MatrixPlacement& p,
                  const attn::Matrix& weights) {
    const attn::HeadScores& chance = run.model->chance_scores;
    if (!p.hovered) return;
    ImGui::BeginTooltip();
    const std::vector<int>& groups = run.model->trace->blocks[static_cast<size_t>(layer)].attention.head_groups;
    if (static_cast<size_t>(head) < groups.size() && groups.back() + 1 != static_cast<int>(groups.size()))
        ImGui::Text("query head %d uses key/value head %d (shared with %d other query heads)", head,
                    groups[static_cast<size_t>(head)],
                    static_cast<int>(std::count(groups.begin(), groups.end(), groups[static_cast<size_t>(head)])) - 1);
    ImGui::Text("head %s: click to show its pipeline", attn::layer_head(layer, head).c_str());
    ImGui::Text("previous-token %.2f · duplicate-token %.2f · induction %.2f (%.2f of the rows with an earlier copy) · "
                "first-token sink %.2f", s.previous_token, s.duplicate_token, s.induction, s.induction_stripe, s.first_token);
    ImGui::TextDisabled("uniform attention on these tokens: %.2f · %.2f · %.2f (%.2f) · %.2f", chance.previous_token,
                        chance.duplicate_token, chance.induction, chance.induction_stripe, chance.first_token);
    const auto& tokens = run.tokens.tokens;
    if (p.row >= 0 && p.col >= 0 && static_cast<size_t>(std::max(p.row, p.col)) < tokens.size())
        ImGui::Text("query '%s' -> key '%s': weight %.4f", tokens[static_cast<size_t>(p.row)].c_str(),
                    tokens[static_cast<size_t>(p.col)].c_str(), static_cast<double>(weights(p.row, p.col)));
    ImGui::EndTooltip();
}

// The layer x head grid; the clicked tile, if any.
std::optional<std::pair<int, int>> draw_grid(const attn::Run& run, int shown_layer, int shown_head, bool can_patch,
                                             const DrawContext& ctx, HeatmapRegistry& shown, WidgetRects& widgets,
                                             ModelViewChoice& choice) {
    const attn::ModelRun& m = *run.model;
    const int layers = static_cast<int>(m.trace->blocks.size());
    const int heads = layers ? static_cast<int>(m.trace->blocks[0].attention.heads.size()) : 0;
    ImGui::PushFont(ctx.fonts.heading);
    text_wrapped("Every layer and head (%d x %d, weights on one scale 0 to 1): click a head to see its pipeline", layers,
                 heads);
    ImGui::PopFont();
    text_wrapped("Labels name a head's strongest type when it takes %.0f%% of the attention or more, %.0f points "
                 "above a head attending uniformly: prev (previous token), dup (duplicate token), ind (induction, "
                 "over the rows whose token came before), sink (first token).",
                 kTypeThreshold * 100, kAboveChance * 100);
    text_wrapped_disabled("Right-click a head (or press X over it) to switch it off: its output becomes zero, and every "
                          "later layer and the prediction are computed without it. P patches it from the other text.");
    // Query heads that share a key/value head sit together, a wider gap between groups.
    static const std::vector<int> kNoGroups;
    const std::vector<int>& groups = layers ? m.trace->blocks[0].attention.head_groups : kNoGroups;
    const std::string groups_line = kv_groups_line(groups);
    if (!groups_line.empty()) text_wrapped("%s", groups_line.c_str());
    const auto group_starts = [&](int h) {
        return !groups_line.empty() && h > 0 && groups[static_cast<size_t>(h)] != groups[static_cast<size_t>(h - 1)];
    };
    const float gap = ImGui::GetStyle().ItemSpacing.x, group_gap = 4.0f * gap;
    const float label_w = ImGui::CalcTextSize("layer 00").x + gap;
    const float avail = ImGui::GetContentRegionAvail().x - label_w;
    float gaps = 0.0f;
    for (int h = 0; h < heads; ++h) gaps += group_starts(h) ? group_gap : gap;
    const float side = std::clamp((avail - gaps) / static_cast<float>(std::max(heads, 1)), 20.0f * ctx.ui_scale,
                                  110.0f * ctx.ui_scale);
    const attn::Matrix& mask = causal_mask(static_cast<Eigen::Index>(run.tokens.ids.size()));
    std::optional<std::pair<int, int>> clicked;
    for (int l = 0; l < layers; ++l) {
        ImGui::AlignTextToFramePadding();
        ImGui::Text("layer %d", l);
        ImGui::SameLine(label_w);
        float x = 0.0f;
        for (int h = 0; h < heads; ++h) {
            const attn::Matrix& weights = m.trace->blocks[static_cast<size_t>(l)].attention.heads[static_cast<size_t>(h)].at("weights");
            const attn::HeadScores& scores = m.head_scores[static_cast<size_t>(l)][static_cast<size_t>(h)];
            const float before = group_starts(h) ? group_gap : gap;
            if (h > 0 && x + side + before <= avail) ImGui::SameLine(0.0f, before);
            else if (h > 0) {
                ImGui::NewLine();
                ImGui::SameLine(label_w);
                x = 0.0f;
            }
            x += side + before;
            ImGui::BeginGroup();
            const bool off = is_off(m, l, h), patched = is_patched(m, l, h);
            const std::string caption =
                (off ? "OFF " : patched ? "PATCHED " : "") + tile_caption(l, h, scores, m.chance_scores);
            ImGui::PushFont(ctx.fonts.small);
            ImGui::TextUnformatted(caption.c_str());
            ImGui::PopFont();
            MatrixRequest req;
            req.key = "model/" + attn::layer_head(l, h);
            req.values = &weights;
            req.masked_by = &mask;
            req.scale = ColorScale{ColorMode::Sequential, 0.0f, 1.0f};
            req.max_size = ImVec2(side, side);
            req.max_cell = 40.0f;
            req.show_values = false;
            req.highlight = l == shown_layer && h == shown_head;
            req.export_name = attn::layer_head_file(l, h) + "_weights";
            req.menu_items = tile_menu(m, l, h, can_patch, widgets, choice);
            const MatrixPlacement p = draw_matrix(req, ctx);
            ImGui::EndGroup();
            if (off) {  // on the tile itself: dimmed and crossed out (the shown head's frame is an outline)
                ImDrawList* dl = ImGui::GetWindowDrawList();
                const ImU32 cross = ImGui::GetColorU32(ui_color(ui_colors().error));
                dl->AddRectFilled(p.min, p.max, IM_COL32(0, 0, 0, 140));
                dl->AddLine(p.min, p.max, cross, 3.0f * ctx.ui_scale);
                dl->AddLine(ImVec2(p.min.x, p.max.y), ImVec2(p.max.x, p.min.y), cross, 3.0f * ctx.ui_scale);
            }
            if (patched) {  // a double frame in the lesson marks' colour (the selection's is single, red)
                ImDrawList* dl = ImGui::GetWindowDrawList();
                const ImU32 mark = ui_color32(ui_colors().lesson_frame);
                const float w = 2.0f * ctx.ui_scale, in = 3.0f * w;
                dl->AddRect(p.min, p.max, mark, 0.0f, 0, w);
                dl->AddRect(ImVec2(p.min.x + in, p.min.y + in), ImVec2(p.max.x - in, p.max.y - in), mark, 0.0f, 0, w);
            }
            if (p.clicked) clicked = std::make_pair(l, h);
            tile_key(l, h, p, choice);
            tile_tooltip(run, l, h, scores, p, weights);
            record(shown, req.key, p, weights);
        }
    }
    ImGui::Spacing();
    draw_legend(ColorScale{ColorMode::Sequential, 0.0f, 1.0f}, 300.0f * ctx.ui_scale, ctx);
    return clicked;
}

// What a sampling run draws from, in one line: the bars show softmax(logits), the draw
// softmax(top_k(logits) / temperature).
std::string sampling_line(const attn::Sampling& how) {
    char line[160];
    std::snprintf(line, sizeof line, "Sampling at temperature %g%s: \"drawn\" is the chance generate picks each token",
                  how.temperature, how.top_k ? (" among the top " + std::to_string(*how.top_k)).c_str() : "");
    return line;
}

// Which token the bars follow, and the way back to the last token.
void draw_next_heading(const attn::ModelRun& m, std::optional<int> next_at, const std::string& after,
                       const DrawContext& ctx, WidgetRects& widgets, ModelViewChoice& choice) {
    const int64_t last = static_cast<int64_t>(m.tokens.ids.size()) - 1;
    ImGui::PushFont(ctx.fonts.heading);
    text_wrapped("Next token after %s (position %lld%s): the 10 most probable", after.c_str(),
                 static_cast<long long>(m.next_position), m.next_position == last ? ", the last" : "");
    ImGui::PopFont();
    widgets.record("next_tokens");  // the heading (the bars follow; append_token is under them)
    // The line under the heading is as tall as the button's: the bars stay put as it comes and goes.
    if (next_at) {  // picked: it stays while tokens are appended
        if (ImGui::Button("Follow the last token")) choice.next_at_last = true;
        widgets.record("next_at_last");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("the next tokens after the last token, as the text grows");
        ImGui::SameLine();
        ImGui::AlignTextToFramePadding();
        if (*next_at > last)  // the worker shows the last token's meanwhile
            ImGui::TextDisabled("position %d is past the last token: the last's until the tokens reach it", *next_at);
        else
            ImGui::TextDisabled(m.next_position == last ? "picked: it stays while tokens are appended"
                                                        : "Append and Generate continue after the last token");
    } else {
        ImGui::AlignTextToFramePadding();
        ImGui::TextDisabled("Click a token above for the next tokens after it.");
    }
}

// Which heads are off, and the way to switch them all back on.
void draw_switched_off(const attn::ModelRun& m, WidgetRects& widgets, ModelViewChoice& choice) {
    std::string heads;
    for (const attn::HeadSite& h : m.switched_off) heads += (heads.empty() ? "" : ", ") + attn::layer_head(h);
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(ui_color(ui_colors().error), "Switched off: %s", heads.c_str());
    widgets.record("switched_off");
    ImGui::SameLine();
    if (ImGui::Button("Switch every head back on")) choice.all_heads_on = true;
    widgets.record("all_heads_on");
    text_wrapped_disabled("The bars are the run without %s; in brackets the run with every head on. The tiles below "
                          "are the changed run's: every later layer reads the residual stream without %s.",
                          m.switched_off.size() == 1 ? "that head" : "those heads",
                          m.switched_off.size() == 1 ? "it" : "them");
}

// The next tokens as bars, and the buttons that append them.
void draw_next_tokens(const attn::Run& run, int generating, std::optional<int> next_at, const DrawContext& ctx,
                      WidgetRects& widgets, ModelViewChoice& choice) {
    const attn::ModelRun& m = *run.model;
    if (m.next_tokens.empty() || m.next_position < 0) return;
    const auto text_of = [&](int64_t id) { return attn::quoted_token(m.model, id); };
    draw_next_heading(m, next_at, text_of(m.tokens.ids[static_cast<size_t>(m.next_position)]), ctx, widgets, choice);
    const float word_w = ImGui::CalcTextSize("'abcdefghijklmn'").x;
    const float bar_w = std::min(ImGui::GetContentRegionAvail().x - word_w, 360.0f * ctx.ui_scale);
    // The settings of the run on screen: what its generated tokens came from, and what
    // the buttons continue (other settings start the generated tokens over).
    const attn::Sampling& how = m.sampler.how();
    if (how.sampled())  // the bars are the model's; the draw reshapes them
        ImGui::TextDisabled("%s", sampling_line(how).c_str());
    const bool switched = attn::changes_heads(m);
    if (!m.switched_off.empty()) draw_switched_off(m, widgets, choice);
    const char* unchanged = m.patched.empty() ? "every head on" : "unpatched";
    const float top = std::max(m.next_tokens.front().prob, 1e-30f);
    for (const attn::TokenProbability& t : m.next_tokens) {
        ImGui::TextUnformatted(text_of(t.id).c_str());
        ImGui::SameLine(word_w);
        char label[96];
        if (switched) {  // after, and before: the run with every head on
            const auto before = std::find_if(m.baseline_next_tokens.begin(), m.baseline_next_tokens.end(),
                                             [&](const attn::TokenProbability& b) { return b.id == t.id; });
            if (before != m.baseline_next_tokens.end())
                std::snprintf(label, sizeof label, "%.2f%%  (%s: %.2f%%)", static_cast<double>(t.prob) * 100.0, unchanged,
                              static_cast<double>(before->prob) * 100.0);
            else
                std::snprintf(label, sizeof label, "%.2f%%  (%s: not in the top %zu)", static_cast<double>(t.prob) * 100.0,
                              unchanged, m.baseline_next_tokens.size());
        } else if (t.drawn >= 0.0f)
            std::snprintf(label, sizeof label, "%.2f%% · drawn %.2f%%", static_cast<double>(t.prob) * 100.0,
                          static_cast<double>(t.drawn) * 100.0);
        else
            std::snprintf(label, sizeof label, "%.2f%%", static_cast<double>(t.prob) * 100.0);
        ImGui::ProgressBar(t.prob / top, ImVec2(bar_w, 0.0f), label);  // bars relative to the most probable
    }
    ImGui::BeginDisabled(generating > 0 || switched);
    if (ImGui::Button(how.sampled() ? "Append a sampled token" : "Append the most likely token")) choice.append = true;
    ImGui::EndDisabled();
    widgets.record("append_token");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
        if (switched)
            ImGui::SetTooltip("%s to generate: generation runs through the KV cache, which does not change heads yet.",
                              m.patched.empty() ? "Switch the heads back on" : "Stop patching");
        else if (how.sampled())
            ImGui::SetTooltip("generate's step: the last position's logits%s divided by the temperature, and a token "
                              "drawn from their softmax (torch.multinomial), added to the text",
                              how.top_k ? " (all but the top k set to -inf)" : "");
        else
            ImGui::SetTooltip("generate_text_simple's step: the argmax of the last position's logits, added to the text");
    }
    ImGui::SameLine();
    if (generating > 0) {
        if (ImGui::Button("Stop generating")) choice.stop = true;
    } else {
        ImGui::BeginDisabled(switched);
        if (ImGui::Button("Generate 10 tokens")) choice.generate = 10;
        ImGui::EndDisabled();
    }
    widgets.record("generate");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Appends %s ten times, one run each: %s and drawn as it comes.%s",
                          how.sampled() ? "a sampled token" : "the most likely token",
                          m.model.model->shape().kv_heads < m.model.model->shape().heads ? "every new token's attention row is computed from the cached keys and "
                                          "values of the key/value heads, which the query heads of a group share"
                                        : "every new token's attention row is computed from the cached keys and "
                                          "values (chapter 4's KV cache)",
                          how.sampled() ? " The draws continue one random stream: the ten tokens are those one "
                                          "generate call makes after torch.manual_seed."
                                        : "");
    if (!m.generated.empty()) {
        ImGui::SameLine();
        if (ImGui::Button("Remove generated")) choice.clear = true;
        widgets.record("clear_generated");
    }
    char method[96] = "greedy (argmax)";
    if (how.sampled()) {
        char top_k[32] = "";
        if (how.top_k) std::snprintf(top_k, sizeof top_k, ", top-k %lld", static_cast<long long>(*how.top_k));
        std::snprintf(method, sizeof method, "sampled, T = %.2f%s, seed %llu", how.temperature, top_k,
                      static_cast<unsigned long long>(how.seed));
    }
    // Beside the buttons when it fits, else under them.
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    if (ImGui::CalcTextSize(method).x + gap <= ImGui::GetContentRegionAvail().x - ImGui::GetItemRectMax().x +
                                                   ImGui::GetCursorScreenPos().x)
        ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", method);
    widgets.record("sampling");
    // What Append and Generate reuse: the key/value heads' keys and values, not the query heads'.
    text_wrapped_disabled("%s", attn::run_cache_line(m).c_str());
    widgets.record("kv_cache");
    if (!m.generated.empty()) {
        text_wrapped("%zu generated token%s after the text (the last %zu chips), appended by id as generate does: %s.",
                     m.generated.size(), m.generated.size() == 1 ? "" : "s", m.generated.size(),
                     how.sampled() ? "each drawn from the one random stream its seed starts (torch's manual_seed)"
                                   : "each the argmax, as generate_text_simple's");
    }
    if (m.extended)
        text_wrapped("This run added the new tokens from the KV cache: one row of every head's weights each. The "
                     "shown head's other stages follow.");
}

}  // namespace

ModelViewChoice draw_model_view(const attn::Run& run, int layer, int head, int generating, std::optional<int> next_at,
                                const ModelViewAsked& asked, const DrawContext& ctx, HeatmapRegistry& shown,
                                WidgetRects& widgets) {
    // The prediction first, then how the layers reached it: the grid of a 12-layer model
    // is taller than a screen.
    ModelViewChoice choice;
    draw_next_tokens(run, generating, next_at, ctx, widgets, choice);
    ImGui::Separator();
    choice.patch = draw_patch_box(*run.model, asked.patch_from, asked.patch.has_value(), asked.ids, widgets);
    ImGui::Separator();
    choice.logit_lens = draw_logit_lens(*run.model, asked.logit_lens, ctx, widgets);
    ImGui::Separator();
    choice.attribute = draw_attribution(*run.model, asked.attribute, ctx, widgets);
    ImGui::Separator();
    choice.head_effects = draw_head_effects(*run.model, asked.head_effects, asked.patch_from.has_value(), ctx, shown, widgets);
    ImGui::Separator();
    if (const auto clicked = draw_grid(run, layer, head, asked.patch_from.has_value(), ctx, shown, widgets, choice)) choice.select = clicked;
    return choice;
}

}  // namespace app
