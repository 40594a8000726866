#pragma once
// A check of the user's own attention module opened in the window (File > Check my
// attention code…): the record's report as the CLI prints it, and which of its compared
// stages and heads the Check tab shows.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "check/attention_check.h"

namespace app {

// The stage and head on screen, worked out once a selection rather than every frame.
struct CheckCells {
    size_t stage = 0;
    int head = -1;          // -1: not worked out yet
    uint64_t version = 0;   // new for each selection: the heatmaps upload values when it changes
    attn::Matrix difference;  // yours − attnscope, 0 where yours is not finite
    attn::Matrix not_finite;  // 1 where yours is inf or nan (drawn as masked)
    std::vector<std::pair<int, int>> outlined;  // row, column of the first kMaxOutlined beyond the tolerance
    long differing = 0;       // all cells beyond the tolerance
    float largest = 0.0f;     // the largest |difference|
    float lo = 0.0f, hi = 0.0f;  // the finite least and largest of both sides (and 0)
};
constexpr long kMaxOutlined = 400;  // past this many the difference's colours say where

struct OpenCheck {
    std::string path;
    attn::AttentionCheck result;
    std::string report;  // attnscope-cli --check's text, line for line
    size_t stage = 0;    // into result.compared: the first that differs, else the last
    int head = 0;        // of a stage with one matrix a head: the first differing one
    std::vector<std::vector<bool>> head_differs;  // a compared stage's heads: any cell beyond its tolerance
    CheckCells cells;    // of stage and head
};

// Reads and checks the record at `path`. Throws attn::ModelFileError (or another
// std::exception) with one line for a file that is not such a record.
OpenCheck open_check(const std::string& path);
// k.cells for k.stage and k.head (clamped), worked out again only when they changed.
const CheckCells& check_cells(OpenCheck& k);

}  // namespace app
