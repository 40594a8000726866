#pragma once
// A download from the Hub as it goes (the desktop's through core/hub/, the page's through the
// browser's fetch), and the one line both show of it.
#include <cstdint>
#include <string>

namespace attn {

struct HubProgress {
    std::string file;        // the repository path arriving
    int file_index = 0;      // 1-based, of file_count files to fetch
    int file_count = 0;
    uint64_t done = 0;       // bytes of the files to fetch that are here (resumed ones too)
    uint64_t total = 0;
    double seconds = 0;      // since the first request
    double rate = 0;         // bytes per second arrived in this fetch; 0 until some did
};

// "model.safetensors (2/3): 123.4 MB of 548.0 MB, 12.3 MB/s, 0:34 left" (the rate and the
// time left once some bytes arrived): the CLI's bar and the app's line.
std::string hub_progress_text(const HubProgress& p);

}  // namespace attn
