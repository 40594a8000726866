#pragma once
// One walk over a command line, for each of its readers (the settings table's, the app's
// own flags, the CLI's own): the flag at hand, and the value after it when it takes one.
//     for (FlagReader flags(args); flags.next();)
//         if (flags.flag() == "--frames") frames = parse_int(flags.flag(), flags.value(), 1, 100000);
#include <string>
#include <vector>

#include "base/user_error.h"  // ArgsError

namespace attn {

class FlagReader {
public:
    explicit FlagReader(const std::vector<std::string>& args) : args_(args) {}
    // Moves to the next flag (past the last one's value); false after the last.
    bool next() {
        if (next_ >= args_.size()) return false;
        at_ = next_++;
        return true;
    }
    const std::string& flag() const { return args_[at_]; }
    // The value after the flag, consumed; "--seed needs a value" when there is none.
    const std::string& value() {
        if (next_ >= args_.size()) throw ArgsError(flag() + " needs a value");
        return args_[next_++];
    }

private:
    const std::vector<std::string>& args_;
    size_t next_ = 0;  // the index after what was read so far
    size_t at_ = 0;    // the flag at hand
};

}  // namespace attn
