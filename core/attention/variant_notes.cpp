#include "attention/variant_notes.h"

#include <cstdio>

namespace attn {

std::string head_group_label(const Trace& t, int head) {
    if (t.head_groups.empty() || head < 0 || static_cast<size_t>(head) >= t.head_groups.size()) return "";
    return "kv " + std::to_string(t.head_groups[static_cast<size_t>(head)] + 1);
}

std::string head_groups_line(const Trace& t) {
    const std::vector<int>& g = t.head_groups;
    if (g.empty()) return "";
    std::string out;
    for (size_t first = 0; first < g.size();) {
        size_t last = first;
        while (last + 1 < g.size() && g[last + 1] == g[first]) ++last;
        const std::string heads = first == last ? "head " + std::to_string(first + 1)
                                                : "heads " + std::to_string(first + 1) + "–" + std::to_string(last + 1);
        const bool shared = last > first;
        if (out.empty()) out = heads + (shared ? " share" : " has") + " key/value group " + std::to_string(g[first] + 1);
        else out += ", " + heads + " group " + std::to_string(g[first] + 1);
        first = last + 1;
    }
    if (g.back() == 0 && g.size() > 1) out += " (multi-query attention)";
    else if (static_cast<size_t>(g.back() + 1) == g.size()) out += " (one group per head: ordinary MHA)";
    return out;
}

std::string kv_cache_line(const Trace& t) {
    if (!t.kv_cache) return "";
    const KvCacheSize& c = *t.kv_cache;
    std::string out = "KV cache: " + std::to_string(c.bytes_per_token) + " bytes per token per layer";
    const auto times = [](double r) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3g× ", r);
        return std::string(text);
    };
    if (c.bytes_per_token < c.mha_bytes_per_token)
        out += ", " + times(static_cast<double>(c.mha_bytes_per_token) / c.bytes_per_token) + "less than MHA's " +
               std::to_string(c.mha_bytes_per_token);
    else if (c.bytes_per_token > c.mha_bytes_per_token)
        out += ", " + times(static_cast<double>(c.bytes_per_token) / c.mha_bytes_per_token) + "more than MHA's " +
               std::to_string(c.mha_bytes_per_token);
    else
        out += ", as MHA's";
    long rows = 0;
    for (const HeadTrace& h : t.heads)
        if (const Stage* w = h.find("weights")) rows = w->value.rows();
    if (rows > c.tokens) out += "; it holds only the last " + std::to_string(c.tokens) + " of " + std::to_string(rows) + " tokens";
    else out += "; " + std::to_string(c.tokens) + " tokens: " + std::to_string(c.bytes_per_token * c.tokens) + " bytes";
    return out;
}

}  // namespace attn
