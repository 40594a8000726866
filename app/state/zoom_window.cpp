#include "state/zoom_window.h"

#include <algorithm>
#include <cmath>

namespace app {

void ZoomWindow::show(const std::string& name, long rows, long cols) {
    if (name == name_ && rows == rows_ && cols == cols_) return;
    name_ = name;
    rows_ = std::max(0L, rows);
    cols_ = std::max(0L, cols);
    reset();
}

double ZoomWindow::side(long cells) const {
    // Both sides shrink by the same factor, so cells keep their shape, down to a few cells.
    return std::min(static_cast<double>(cells), std::max(cells / zoom_, static_cast<double>(kMinCells)));
}

CellBlock ZoomWindow::block() const {
    CellBlock b;
    b.rows = std::clamp(std::lround(side(rows_)), std::min(1L, rows_), rows_);
    b.cols = std::clamp(std::lround(side(cols_)), std::min(1L, cols_), cols_);
    b.row0 = std::clamp(std::lround(centre_row_ - b.rows / 2.0), 0L, rows_ - b.rows);
    b.col0 = std::clamp(std::lround(centre_col_ - b.cols / 2.0), 0L, cols_ - b.cols);
    return b;
}

void ZoomWindow::zoom_about(double factor, double fy, double fx) {
    if (!(factor > 0.0) || !std::isfinite(factor)) return;
    fy = std::clamp(fy, 0.0, 1.0);
    fx = std::clamp(fx, 0.0, 1.0);
    // The cell under the point, before and after: the centre moves so that it stays.
    const CellBlock before = block();
    const double row = before.row0 + fy * before.rows, col = before.col0 + fx * before.cols;
    const double limit = std::max<double>(1.0, std::max(rows_, cols_) / static_cast<double>(kMinCells));
    zoom_ = std::clamp(zoom_ * factor, 1.0, std::min(kMaxZoom, limit));
    const double rows_after = side(rows_), cols_after = side(cols_);
    centre_row_ = row - fy * rows_after + rows_after / 2.0;
    centre_col_ = col - fx * cols_after + cols_after / 2.0;
    clamp_centre();
}

void ZoomWindow::pan(double rows, double cols) {
    if (!std::isfinite(rows) || !std::isfinite(cols)) return;
    centre_row_ += rows;
    centre_col_ += cols;
    clamp_centre();
}

void ZoomWindow::clamp_centre() {
    const double half_rows = side(rows_) / 2.0, half_cols = side(cols_) / 2.0;
    centre_row_ = std::clamp(centre_row_, half_rows, std::max(half_rows, rows_ - half_rows));
    centre_col_ = std::clamp(centre_col_, half_cols, std::max(half_cols, cols_ - half_cols));
}

}  // namespace app
