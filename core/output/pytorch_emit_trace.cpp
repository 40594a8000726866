// What attnscope adds inside the book's forward methods: the `self.trace = {...}` block
// that records every stage (Row and HeadVars are in pytorch_emit_parts.h), what those
// stages are called in a class of nn.Linear projections, and seed 004's causal mask for
// --causal. Shared by the class writers.
#include <algorithm>

#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

// Rows rendered one per line, "key": expr, with comments in one column.
std::string trace_rows(const std::vector<Row>& rows, std::size_t indent) {
    std::size_t width = 0;
    for (const Row& r : rows) width = std::max(width, r.key.size() + r.expr.size() + 5);
    std::string out;
    for (const Row& r : rows) {
        std::string line = std::string(indent, ' ') + "\"" + r.key + "\": " + r.expr + ",";
        if (!r.comment.empty()) line += std::string(indent + width + 1 - line.size(), ' ') + "# " + r.comment;
        out += line + "\n";
    }
    return out;
}

HeadVars linear_head_vars(bool bias, const std::string& cols, const std::string& kv_cols,
                          const std::string& key_name, const std::string& value_name) {
    const auto weight = [](const std::string& layer, const std::string& c) {
        return "self.W_" + layer + ".weight.T" + (c.empty() ? "" : "[:, " + c + "]");
    };
    const auto bias_of = [](const std::string& layer, const std::string& c) {
        return "self.W_" + layer + ".bias" + (c.empty() ? "" : "[" + c + "]");
    };
    HeadVars h;
    h.w_query = weight("query", cols);
    h.w_key = weight(key_name, kv_cols);
    h.w_value = weight(value_name, kv_cols);
    if (bias) h.biases = {bias_of("query", cols), bias_of(key_name, kv_cols), bias_of(value_name, kv_cols)};
    h.key_name = key_name;
    h.value_name = value_name;
    h.queries = "queries";
    h.keys = "keys";
    h.values = "values";
    h.scale = "keys.shape[-1]**0.5";
    h.weights = "attn_weights";
    return h;
}

std::vector<Row> head_rows(const HeadVars& v) {
    const auto at = [&](const std::string& e) { return e + v.at; };
    const auto kv_at = [&](const std::string& e) { return e + (v.kv_at.empty() ? v.at : v.kv_at); };
    const std::string W_key = "W_" + v.key_name, W_value = "W_" + v.value_name;
    std::vector<Row> rows = {{"W_query", v.w_query, v.w_query.find(".weight.T") != std::string::npos
                                                        ? "nn.Linear keeps W transposed: x @ W.T"
                                                        : ""},
                             {W_key, v.w_key, ""},
                             {W_value, v.w_value, ""}};
    if (!v.biases.empty()) {
        rows.push_back({"b_query", v.biases[0], "--qkv-bias"});
        rows.push_back({"b_" + v.key_name, v.biases[1], ""});
        rows.push_back({"b_" + v.value_name, v.biases[2], ""});
    }
    std::vector<Row> more = {
        {"queries", at(v.queries), ""},
        {"keys", kv_at(v.keys), ""},
        {"values", kv_at(v.values), ""},
        {"scores", at(v.scores), "omega: raw q·k"},
        {"scaled_scores", at(v.scores) + " / " + v.scale, "divided by sqrt(d_k)"},
        {"mask", v.mask, v.mask_why},
        {"masked_scores", at(v.masked) + " / " + v.scale, "the softmax input: -inf where masked"},
        {"weights", at(v.weights), "softmax, rows sum to 1"}};
    rows.insert(rows.end(), more.begin(), more.end());
    if (!v.dropout_mask.empty()) {
        rows.push_back({"dropout_mask", at(v.dropout_mask), "0 = dropped, 1/(1-p) = kept"});
        rows.push_back({"dropped_weights", at(v.dropped), "weights after dropout"});
    }
    rows.push_back({"context", v.context, "context vectors"});
    return rows;
}

std::string self_trace(const std::vector<Row>& rows, const std::string& what) {
    return "        # attnscope: every stage of this forward pass" + what + ", for the JSON at the end\n"
           "        self.trace = {\n" +
           trace_rows(rows, 12) + "        }\n";
}

void replace(std::string& text, const std::string& key, const std::string& value) {
    text.replace(text.find(key), key.size(), value);
}

// 004's causal section, applied inside the forward (--causal).
std::string causal_lines(bool causal) {
    if (!causal) return "";
    return "        # attnscope --causal, as seed 004 masks its scores: -inf where a token would see the future\n"
           "        scores = attn_scores\n"
           "        mask = torch.triu(torch.ones(attn_scores.shape), diagonal=1)\n"
           "        attn_scores = attn_scores.masked_fill(mask.bool(), -torch.inf)\n";
}

}  // namespace attn::pytorch_emit_parts
