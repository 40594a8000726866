#pragma once
// Whole files in and out, for the engine and the app: the one atomic writer and the one
// size-capped reader. Callers that word their own messages (a session, a lesson, a
// corpus, an export) catch FileError and use its problem, path and reason.
#include <cstdint>
#include <string>
#include <string_view>

#include "base/user_error.h"

namespace attn {

// A file that could not be read or written. what() is one line naming the file:
//   PATH: no such file
//   PATH: not a file
//   PATH: the file is N bytes; WHAT is at most 1 MB
//   PATH: cannot read: REASON
//   PATH: cannot write: REASON
struct FileError : UserError {
    enum class Problem { Missing, NotAFile, TooLarge, CannotRead, CannotWrite };
    FileError(Problem problem, const std::string& path, const std::string& reason, const std::string& message,
              std::uintmax_t size = 0)
        : UserError(message), problem(problem), path(path), reason(reason), size(size) {}

    Problem problem;
    std::string path;
    std::string reason;       // the system's words (strerror), e.g. "No such file or directory"
    std::uintmax_t size = 0;  // TooLarge: the file's size in bytes
};

// Writes `bytes` to `path` through a temporary file in the same directory (".NAME.tmp-...",
// created with the permissions a new file gets), renamed over `path` at the end: `path`
// either keeps its old content or holds all of the new one, and a failure leaves no
// temporary file behind. durable: also fsync the file before the rename and the directory
// after it, so that a power cut cannot lose a file that was reported saved (slow: for
// what the user saves, not for what is rewritten every frame). Throws FileError
// (CannotWrite).
void write_file_atomically(const std::string& path, std::string_view bytes, bool durable);

// The bytes of the regular file at `path`, which may be at most max_bytes long. `what`
// names the kind of file in the TooLarge message ("a session"). Throws FileError
// (Missing, NotAFile, TooLarge, CannotRead). A FIFO or device is refused (NotAFile),
// never opened for reading, so a stray path cannot block the caller.
std::string read_file_capped(const std::string& path, std::uintmax_t max_bytes, const std::string& what);

}  // namespace attn
