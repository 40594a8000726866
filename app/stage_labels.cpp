#include "stage_labels.h"

#include <limits>
#include <map>

#include "worked_arithmetic.h"

namespace app {

namespace {

struct StageWords {
    const char* title;
    const char* explanation;
};

const std::map<std::string, StageWords>& stage_words() {
    static const std::map<std::string, StageWords> words = {
        {"token_embeddings",
         {"token embedding rows", "Row i: the row of nn.Embedding(vocab_size, d_in) at token i's id."}},
        {"pos_embeddings",
         {"positional rows", "Row i: the row of nn.Embedding(context_length, d_in) at position i, added to token i."}},
        {"inputs", {"X  inputs", "The vectors attention works on, one row per token."}},
        {"inputs2", {"X₂  second inputs", "Keys and values are computed from these rows."}},
        {"W_query", {"W_q  query weights", "X·W_q gives the queries."}},
        {"W_key", {"W_k  key weights", "X·W_k gives the keys."}},
        {"W_value", {"W_v  value weights", "X·W_v gives the values."}},
        {"b_query", {"b_q  query bias", ""}},
        {"b_key", {"b_k  key bias", ""}},
        {"b_value", {"b_v  value bias", ""}},
        {"queries", {"Q = X·W_q  queries", "What each token is looking for."}},
        {"keys", {"K = X·W_k  keys", "What each token offers to be found by."}},
        {"values", {"V = X·W_v  values", "What each token passes on when attended to."}},
        {"scores", {"scores = Q·Kᵀ", "Row i, column j: how well query i matches key j."}},
        {"scaled_scores", {"scaled = scores / √d_k", "Dividing by √d_k keeps the softmax from saturating."}},
        {"mask", {"causal mask", "Striped = masked: a token may not look at later tokens."}},
        {"masked_scores", {"masked scores", "Masked cells become −∞, so softmax gives them weight 0."}},
        {"weights", {"weights = softmax(rows)", "Each row sums to 1: how much query i attends to key j."}},
        {"dropout_mask", {"dropout mask", "0 = dropped; kept weights are scaled by 1/(1−p)."}},
        {"dropped_weights", {"weights after dropout", "Weights × dropout mask."}},
        {"context", {"Z = weights·V  context", "Each row: the weighted sum of the value rows."}},
        {"concat", {"concat(heads)", "The heads' context vectors side by side."}},
        {"W_out", {"W_out  out_proj weights", "Mixes the concatenated heads."}},
        {"b_out", {"b_out  out_proj bias", ""}},
        {"output", {"output", "What the module returns."}},
    };
    return words;
}

}  // namespace

std::string stage_title(const std::string& name) {
    const auto it = stage_words().find(name);
    return it == stage_words().end() ? name : it->second.title;
}

std::string stage_explanation(const std::string& name) {
    const auto it = stage_words().find(name);
    return it == stage_words().end() ? "" : it->second.explanation;
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
    return model_stage == "concat" || model_stage == "W_out" || model_stage == "b_out";
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
