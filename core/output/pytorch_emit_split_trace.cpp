// The lines that end the forward of every weight-split class (MultiHeadAttention, and the
// book's ch04 classes built on it): the module's own stages, then per head the columns of
// each projection that head owns. Shared by their class writers, so that the four record
// their stages alike and the JSON reads them alike.
#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

HeadVars split_head_vars(bool bias, const std::string& mask, const std::string& kv_cols, const std::string& key_name,
                         const std::string& value_name) {
    HeadVars h = linear_head_vars(bias, "cols", kv_cols, key_name, value_name);
    h.scores = "scores";
    h.masked = "attn_scores";
    h.mask = mask;
    h.weights = "weights";
    h.dropout_mask = "dropout_mask";
    h.dropped = "attn_weights";
    h.context = "concat[0, :, cols]";
    h.at = "[0, h]";
    return h;
}

std::string split_trace(const std::vector<Row>& head, bool out_bias, const std::vector<Row>& module,
                        const std::vector<std::string>& why, const std::vector<std::string>& setup) {
    // out_proj, which every head's context passes through: the CLI lists it with each head too.
    const auto out_proj = [&](const std::string& why) {
        std::vector<Row> rows = {{"W_out", "self.out_proj.weight.T", why}};
        if (out_bias) rows.push_back({"b_out", "self.out_proj.bias", ""});
        return rows;
    };
    std::vector<Row> top = {{"concat", "concat[0]", "the heads side by side, before out_proj"}};
    for (const Row& r : out_proj("")) top.push_back(r);
    top.insert(top.end(), module.begin(), module.end());
    std::vector<Row> rows = head;
    for (const Row& r : out_proj("out_proj, which every head's context passes through")) rows.push_back(r);

    std::string out = "        # attnscope: every stage of this forward pass for batch element 0, for the JSON at\n"
                      "        # the end.";
    for (const std::string& line : why) out += (out.back() == '.' ? " " : "        # ") + line + "\n";
    if (why.empty()) out += "\n";
    out += "        self.trace = {\n"
           "            \"module\": {  # the module's own stages: the JSON's top level\n" +
           trace_rows(top, 16) +
           "            },\n"
           "            \"heads\": [],\n"
           "        }\n"
           "        for h in range(self.num_heads):\n";
    for (const std::string& line : setup) out += "            " + line + "\n";
    return out + "            self.trace[\"heads\"].append({\n" + trace_rows(rows, 16) + "            })\n";
}

std::string construct_ch04(const AttentionConfig& c, const std::string& m, const std::string& cls,
                           const std::vector<std::string>& before_bias, const std::vector<std::string>& after_bias) {
    std::vector<std::string> args = {"d_in", "d_out", py_float(c.dropout), "num_heads=" + std::to_string(c.heads)};
    args.insert(args.end(), before_bias.begin(), before_bias.end());
    if (c.qkv_bias) args.push_back("qkv_bias=True");
    args.insert(args.end(), after_bias.begin(), after_bias.end());
    const std::string call = m + " = " + cls;
    std::string list = py_list(args, call.size());  // wrapped as a list is, in parentheses
    list.front() = '(';
    list.back() = ')';
    return call + list + "\n";
}

}  // namespace attn::pytorch_emit_parts
