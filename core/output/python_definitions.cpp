// python_definition: one top-level definition out of a Python script (python_scripts.h).
#include <algorithm>
#include <stdexcept>

#include "output/python_scripts.h"

namespace attn {

namespace {

bool defines(std::string_view line, std::string_view name) {
    for (const std::string_view keyword : {"class ", "def ", ""}) {
        if (line.substr(0, keyword.size()) != keyword) continue;
        const std::string_view rest = line.substr(keyword.size());
        if (rest.substr(0, name.size()) != name) continue;
        const std::string_view after = rest.substr(name.size());
        // "class NAME(" / "class NAME:", "def NAME(", "NAME = ..." (not NAME_OTHER).
        if (keyword.empty() ? after.substr(0, 2) == " =" || after.substr(0, 1) == "="
                            : after.substr(0, 1) == "(" || after.substr(0, 1) == ":")
            return true;
    }
    return false;
}

}  // namespace

std::string python_definition(std::string_view source, std::string_view name) {
    std::size_t begin = std::string_view::npos, end = source.size();
    for (std::size_t at = 0; at < source.size() && end == source.size();) {
        const std::size_t eol = std::min(source.find('\n', at), source.size());
        const std::string_view line = source.substr(at, eol - at);
        if (begin == std::string_view::npos) {
            if (defines(line, name)) begin = at;
        } else if (!line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != ')' && line[0] != ']' &&
                   line[0] != '}') {
            end = at;  // the next statement (or comment) at column 0; a closing bracket there is still ours
        }
        at = eol + 1;
    }
    if (begin == std::string_view::npos) throw std::logic_error("the Python script has no definition of " + std::string(name));
    std::string_view block = source.substr(begin, end - begin);
    while (!block.empty() && (block.back() == '\n' || block.back() == ' ')) block.remove_suffix(1);
    return std::string(block) + "\n";
}

}  // namespace attn
