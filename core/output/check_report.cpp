#include "output/check_report.h"

#include <string>

#include "output/json_writer.h"

namespace attn {

namespace {

std::string joined(const std::vector<std::string>& parts) {
    std::string text;
    for (size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
    return text;
}

std::string where(const CellDifference& d) {
    return d.stage + (d.head >= 0 ? ", head " + std::to_string(d.head) : "") + ", row " + std::to_string(d.row) +
           ", column " + std::to_string(d.col);
}

}  // namespace

void write_check_text(std::ostream& out, const AttentionCheck& check) {
    out << "Checked " << check.module << " against attnscope's attention (PyTorch's, within 1e-5 of each stage's scale)\n";
    if (!check.matched.empty()) out << "  matches:   " << joined(check.matched) << '\n';
    if (!check.first) {
        out << (check.matched.empty() ? "  nothing was recorded that attnscope compares\n"
                                      : "  every recorded stage matches\n");
    } else {
        const CellDifference& d = *check.first;
        out << "  differs:   " << where(d) << ": yours " << d.yours << ", attnscope " << d.ours << " (tolerance "
            << d.tolerance << ")\n"
            << "  attnscope: " << d.arithmetic << '\n';
        if (check.diagnoses.empty())
            out << "  why:       not one of the mistakes attnscope knows (docs/check.md lists them): look at that cell\n";
        for (const std::string& why : check.diagnoses) out << "  why:       " << why << '\n';
    }
    for (const std::string& note : check.notes) out << "  note:      " << note << '\n';
}

void write_check_json(std::ostream& out, const AttentionCheck& check) {
    JsonWriter w(out);
    const auto strings = [&](const char* key, const std::vector<std::string>& list) {
        out << ",\"" << key << "\":[";
        for (size_t i = 0; i < list.size(); ++i) {
            if (i) out << ',';
            w.string(list[i]);
        }
        out << ']';
    };
    out << "{\"module\":";
    w.string(check.module);
    strings("matched", check.matched);
    out << ",\"first_difference\":";
    if (!check.first) {
        out << "null";
    } else {
        const CellDifference& d = *check.first;
        out << "{\"stage\":";
        w.string(d.stage);
        out << ",\"head\":";
        if (d.head >= 0) out << d.head;
        else out << "null";
        out << ",\"row\":" << d.row << ",\"column\":" << d.col << ",\"yours\":";
        w.number(d.yours);
        out << ",\"attnscope\":";
        w.number(d.ours);
        out << ",\"tolerance\":";
        w.number(static_cast<float>(d.tolerance));
        out << ",\"arithmetic\":";
        w.string(d.arithmetic);
        out << '}';
    }
    strings("diagnoses", check.diagnoses);
    strings("notes", check.notes);
    out << "}\n";
}

}  // namespace attn
