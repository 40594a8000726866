// Session files: the input is the file's text, read by load_session from a file (as the
// app's File > Open does). A session that loads must save (session_json) and load again
// to the same file text.
#include <optional>

#include "fuzz_common.h"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = fuzz::write_temp("fuzz-session", data, size);
    std::optional<SavedSession> loaded;
    if (!fuzz::refusals_are_fine([&] { loaded.emplace(load_session(path)); })) return 0;

    // What was loaded from valid JSON can always be saved and read back unchanged.
    const std::string saved = session_json(*loaded);
    const SavedSession again = parse_session(saved, "saved session");
    fuzz::check(session_json(again) == saved, "parse_session(session_json(s)) saves the same text");
    return 0;
}
