// What a server named by HF_ENDPOINT answers a HEAD of a file's resolve URL
// (hub/hub_files.h's read_file_answer): the first byte picks the status (a 200 or a
// redirect), the rest is header lines, "Name: value". An answer that reads must give a
// blob name that is a file name, a commit hash, and an http(s) address for the bytes.
#include <sstream>

#include "fuzz_common.h"
#include "hub/hub_error.h"
#include "hub/hub_files.h"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    HttpAnswer a;
    a.status = data[0] % 2 ? 302 : 200;
    std::istringstream lines(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
    for (std::string line; std::getline(lines, line);) {
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        a.headers[name] = line.substr(colon + 1 + (colon + 1 < line.size() && line[colon + 1] == ' '));
    }
    try {
        const RemoteFile f = read_file_answer(a, "https://hub.test/o/n/resolve/main/config.json", "https://hub.test",
                                              "o/n", "config.json");
        fuzz::check(!f.etag.empty() && f.etag.find('/') == std::string::npos && f.etag != "." && f.etag != "..",
                    "the blob's name is a file name");
        fuzz::check(f.commit.size() == 40, "the commit is a hash");
        fuzz::check(f.location.rfind("http://", 0) == 0 || f.location.rfind("https://", 0) == 0,
                    "the bytes come from an http(s) address");
    } catch (const HubError& e) {
        fuzz::one_line("HubError", e.what());
    }
    return 0;
}
