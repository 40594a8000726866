#pragma once
// Every error the engine shows a user is one line (the CLI's contract: exit 2, one line
// on stderr; the app's error line). Messages quote what the user gave, a typed value or
// a string from a lesson or session file, which may hold line breaks: the base class
// writes control characters as escapes (\n, \t, \xHH).
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn {

std::string one_line(std::string_view text);

struct UserError : std::runtime_error {
    explicit UserError(const std::string& what) : std::runtime_error(one_line(what)) {}
};

}  // namespace attn
