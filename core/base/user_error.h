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

// A flag, a link parameter or a value in a file that is not one the program takes
// ("--heads must be between 1 and 64, got 0").
struct ArgsError : UserError {
    using UserError::UserError;
};

}  // namespace attn
