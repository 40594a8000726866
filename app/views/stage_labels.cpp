#include "views/stage_labels.h"

#include <algorithm>
#include <limits>

#include "attention/stage_catalogue.h"
#include "run/model_run.h"

#include "output/worked_arithmetic.h"

namespace app {

// Titles, explanations and where a stage is drawn come from the engine's stage
// catalogue (core/attention/stage_catalogue.h); this file keeps the app's own words.

std::string stage_title(const std::string& name) {
    const attn::StageInfo* info = attn::find_stage_info(name);
    return info ? info->label : name;
}

std::string stage_title(const std::string& name, const attn::Trace& trace) {
    if (name == "mask" && trace.window > 0) return "sliding-window mask (W = " + std::to_string(trace.window) + ")";
    return stage_title(name);
}

std::string head_name(const attn::Run& run, int head) {
    if (!run.model) return "head " + std::to_string(head + 1);
    return "head " + attn::layer_head(std::max(run.model->layer, 0), head);
}

std::string head_file_name(const attn::Run& run, int head) {
    if (!run.model) return "head" + std::to_string(head + 1);
    return attn::layer_head_file(std::max(run.model->layer, 0), head);
}

std::string stage_explanation(const std::string& name) {
    const attn::StageInfo* info = attn::find_stage_info(name);
    return info ? info->meaning : "";
}

std::vector<std::string> axis_labels(const attn::Run& run, attn::Axis axis, int count) {
    std::vector<std::string> labels;
    labels.reserve(static_cast<size_t>(count));
    const attn::Tokenized* tokens = nullptr;
    if (axis == attn::Axis::Tokens) tokens = &run.tokens;
    if (axis == attn::Axis::KeyTokens && run.tokens2) tokens = &*run.tokens2;
    for (int i = 0; i < count; ++i) {
        if (tokens && static_cast<size_t>(i) < tokens->tokens.size())
            labels.push_back(visible_token(tokens->tokens[static_cast<size_t>(i)]));
        else if (axis == attn::Axis::KeyTokens)
            labels.push_back("row " + std::to_string(i + 1));  // cross without a second text: torch.rand rows
        else if (axis == attn::Axis::One)
            labels.push_back("");
        else
            labels.push_back(std::to_string(i + 1));
    }
    return labels;
}

std::string axis_name(attn::Axis axis, bool rows) {
    switch (axis) {
    case attn::Axis::Tokens: return rows ? "query tokens" : "tokens";
    case attn::Axis::KeyTokens: return "key tokens";
    case attn::Axis::Features: return "features";
    case attn::Axis::One: return "";
    }
    return "";
}

ColorScale color_scale_for(const attn::Stage& stage) {
    const attn::Matrix& m = stage.value;
    switch (stage.scale) {
    case attn::Scale::Probability: return {ColorMode::Sequential, 0.0f, 1.0f};
    case attn::Scale::Mask: return {ColorMode::Mask, 0.0f, 1.0f};
    case attn::Scale::Factor: return {ColorMode::Sequential, 0.0f, std::max(1.0f, m.size() ? m.maxCoeff() : 1.0f)};
    case attn::Scale::Signed:
    case attn::Scale::Scores: break;
    }
    // The largest finite magnitude (masked -inf cells do not count), as one vectorised
    // pass: a new run rescans every stage on screen, d_in x d_out weights included.
    const auto magnitude = m.array().abs();
    float largest = m.size() ? (magnitude < std::numeric_limits<float>::infinity()).select(magnitude, 0.0f).maxCoeff()
                             : 0.0f;
    if (largest == 0.0f) largest = 1.0f;
    return {ColorMode::Diverging, -largest, largest};
}

bool follows_heads(const std::string& model_stage) {
    const attn::StageInfo* info = attn::find_stage_info(model_stage);
    return info && info->place == attn::StagePlace::AfterHeads;
}

std::string visible_token(const std::string& token) {
    std::string out;
    out.reserve(token.size());
    for (const char ch : token) {
        if (ch == ' ') out += "␣";
        else if (ch == '\n') out += "↵";
        else if (ch == '\t') out += "⇥";
        else if (ch == '\r') out += "␍";
        else out += ch;
    }
    return out;
}

std::string subscript(int n) {
    static const char* digits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
    const std::string plain = std::to_string(n);
    std::string out;
    for (char c : plain) out += digits[c - '0'];
    return out;
}

std::string format_value(float v, int decimals) { return attn::format_number(v, decimals); }

}  // namespace app
