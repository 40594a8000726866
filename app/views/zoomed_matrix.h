#pragma once
// The focus view's matrix, zoomed and panned: the wheel over the heatmap zooms about the
// cell under the pointer, a drag pans, buttons zoom in, out and back to the whole. The
// block on screen is copied (values, mask, labels) once per block and run, so that an
// 8192 x 8192 stage shows its cells one texel each when zoomed in, and its block means
// (level_of_detail.h) when whole.
#include <cstdint>
#include <string>
#include <vector>

#include "state/zoom_window.h"
#include "views/matrix_widget.h"

namespace app {

class ZoomedMatrix {
public:
    // Narrows `req` to the zoom's block of its matrix, named `name` (stage and head).
    void narrow(MatrixRequest& req, const std::string& name, uint64_t run_version);
    // The zoom line above the heatmap of a rows x cols matrix: where the block lies, and
    // its buttons.
    void draw_bar(long rows, long cols, const DrawContext& ctx);
    // After draw_matrix: the wheel and drag on the heatmap at `p`; then `p`'s hovered cell
    // is made the whole matrix's.
    void interact(MatrixPlacement& p);
    CellBlock block() const { return zoom_.block(); }

private:
    ZoomWindow zoom_;
    bool dragging_ = false;
    // The block copied last, and what from.
    std::string copied_name_;
    uint64_t copied_version_ = UINT64_MAX;
    CellBlock copied_;
    attn::Matrix values_, mask_;
    std::vector<std::string> row_labels_, col_labels_;
};

}  // namespace app
