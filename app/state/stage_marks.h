#pragma once
// What a lesson step points at: cells and whole rows of one stage, outlined over its
// heatmap by the views.
#include <string>
#include <utility>
#include <vector>

namespace app {

// Cells and whole rows a lesson points at, outlined over the heatmap.
struct CellMarks {
    std::vector<std::pair<int, int>> cells;  // row, column
    std::vector<int> rows;
    bool empty() const { return cells.empty() && rows.empty(); }
};

// A lesson step's highlight: cells and rows of one stage of the selected head.
struct StageMarks {
    std::string stage;
    CellMarks cells;
};

}  // namespace app
