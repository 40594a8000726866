#pragma once
// Cards of matrices in a grid that puts every one on screen with the largest cells it
// can: focus and presenter mode, where what a lesson points at must be in view.
#include <functional>
#include <vector>

#include "views/matrix_widget.h"

namespace app {

struct CardGrid {
    size_t per_row = 1;
    float card_w = 0.0f;  // each column's width, gap included
};

// Tries every number of rows in `room`; `around(card_w)` is the height a card takes
// besides its matrix (title, legend, notes) at that width. Sets each request's
// max_size and text_font for the grid chosen.
CardGrid fit_card_grid(const std::vector<MatrixRequest*>& requests, ImVec2 room,
                       const std::function<float(float card_w)>& around, const DrawContext& ctx);

// The horizontal gap between two cards.
float card_gap();

}  // namespace app
