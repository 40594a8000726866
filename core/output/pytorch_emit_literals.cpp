// Python literals and the section rules of the emitted program (see pytorch_emit_parts.h).
#include <charconv>
#include <cstdio>

#include "output/pytorch_emit_parts.h"
#include "text/utf8.h"
#include "base/decimal_text.h"

namespace attn::pytorch_emit_parts {

// A Python string literal. Text stays UTF-8 (Python 3's source encoding); a byte that is
// not part of well-formed UTF-8 becomes U+FFFD, as the CLI's JSON writes it.
std::string py_str(std::string_view s) {
    const bool squote = s.find('"') != std::string_view::npos && s.find('\'') == std::string_view::npos;
    const char q = squote ? '\'' : '"';
    std::string out(1, q);
    for (std::size_t i = 0; i < s.size();) {
        const Utf8Char ch = decode_utf8_char(s, i);
        if (ch.len == 0) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        const char c = s[i];
        if (c == q || c == '\\') out += {'\\', c};
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (ch.cp < 0x20 || ch.cp == 0x7f || (ch.cp >= 0x80 && ch.cp < 0xa0) || ch.cp == 0x2028 || ch.cp == 0x2029) {
            char buf[12];
            std::snprintf(buf, sizeof buf, ch.cp < 0x100 ? "\\x%02x" : "\\u%04x", static_cast<unsigned>(ch.cp));
            out += buf;
        } else out.append(s.substr(i, ch.len));
        i += ch.len;
    }
    return out + q;
}

// items joined as a Python list, wrapped before ~96 columns with continuation lines
// indented by `indent` spaces.
std::string py_list(const std::vector<std::string>& items, std::size_t indent) {
    std::string out = "[", line;
    std::size_t column = indent + 1;
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::string item = items[i] + (i + 1 < items.size() ? "," : "");
        if (column + item.size() > 96 && column > indent + 1) {
            out += "\n" + std::string(indent + 1, ' ');
            column = indent + 1;
        } else if (i) {
            out += ' ';
            ++column;
        }
        out += item;
        column += item.size();
    }
    return out + "]";
}

std::string py_ints(const std::vector<int64_t>& ids, std::size_t indent) {
    std::vector<std::string> items;
    for (int64_t id : ids) items.push_back(std::to_string(id));
    return py_list(items, indent);
}

std::string py_strs(const std::vector<std::string>& strs, std::size_t indent) {
    std::vector<std::string> items;
    for (const std::string& s : strs) items.push_back(py_str(s));
    return py_list(items, indent);
}

// Shortest text that reads back as the same double, always with a '.' (0.0, 0.5, 1.0).
std::string py_float(double v) {
    std::string s = shortest_decimal(v);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

// "# --- Title ------": a section rule, 88 columns wide.
std::string section(const std::string& title) {
    const std::string head = "# --- " + title + " ";
    return head + std::string(head.size() < 88 ? 88 - head.size() : 3, '-') + "\n";
}

}  // namespace attn::pytorch_emit_parts
