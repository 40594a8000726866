#pragma once
// Which block of a matrix the focus view shows when zoomed: the wheel zooms about the
// cell under the pointer, a drag pans, and the block always lies within the matrix. An
// 8192 x 8192 stage is drawn whole as block means (level_of_detail.h); zoomed in, its
// cells come back one texel each. No GL or ImGui here: unit-tested.
#include <string>

namespace app {

struct CellBlock {
    long row0 = 0, col0 = 0, rows = 0, cols = 0;
    bool operator==(const CellBlock& o) const {
        return row0 == o.row0 && col0 == o.col0 && rows == o.rows && cols == o.cols;
    }
};

class ZoomWindow {
public:
    static constexpr double kMaxZoom = 4096.0;
    static constexpr long kMinCells = 4;  // the smallest block a side (or the matrix's side)

    // The matrix shown, by a name that says when it is another one (stage and head): a
    // new name or shape shows it whole; a new run of the same shape keeps the zoom.
    void show(const std::string& name, long rows, long cols);
    // The block on screen.
    CellBlock block() const;
    bool zoomed() const { return zoom_ > 1.0; }
    double zoom() const { return zoom_; }

    // Zooms by `factor` (> 1: in) keeping the point at fractions (fy, fx) of the block on
    // screen (0..1 from its top left) where it is.
    void zoom_about(double factor, double fy, double fx);
    // Moves the block by this many cells (a drag to the right shows cells to the left).
    void pan(double rows, double cols);
    void reset() { zoom_ = 1.0; centre_row_ = rows_ / 2.0; centre_col_ = cols_ / 2.0; }

private:
    void clamp_centre();
    double side(long cells) const;  // of the block, in cells (not rounded)
    std::string name_;
    long rows_ = 0, cols_ = 0;
    double zoom_ = 1.0;
    double centre_row_ = 0.0, centre_col_ = 0.0;  // in cells
};

}  // namespace app
