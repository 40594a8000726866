#pragma once
// A check of the user's own attention module opened in the window (File > Check my
// attention code…): the record's report as the CLI prints it, and which of its compared
// stages and heads the Check tab shows.
#include <string>

#include "check/attention_check.h"

namespace app {

struct OpenCheck {
    std::string path;
    attn::AttentionCheck result;
    std::string report;  // attnscope-cli --check's text, line for line
    size_t stage = 0;    // into result.compared: the first that differs, else the last
    int head = 0;        // of a stage with one matrix a head: the first differing one
};

// Reads and checks the record at `path`. Throws attn::ModelFileError (or another
// std::exception) with one line for a file that is not such a record.
OpenCheck open_check(const std::string& path);

}  // namespace app
