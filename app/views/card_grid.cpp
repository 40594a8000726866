#include "views/card_grid.h"

#include <algorithm>
#include <cmath>

namespace app {

namespace {

// Gives every request the same room for its heatmap, less what its labels take there
// (the font decides the labels' room and the room the font: two passes settle it).
void size_requests(const std::vector<MatrixRequest*>& requests, ImVec2 box, const DrawContext& ctx) {
    ImVec2 max_size = box;
    for (int pass = 0; pass < 2; ++pass) {
        ImVec2 labels(0.0f, 0.0f);
        for (MatrixRequest* r : requests) {
            r->max_size = max_size;
            r->text_font = readable_font(*r, ctx);
            const ImVec2 heat = heatmap_size_of(*r, ctx);
            const ImVec2 whole = matrix_footprint(*r, ctx);
            labels = ImVec2(std::max(labels.x, whole.x - heat.x), std::max(labels.y, whole.y - heat.y));
        }
        max_size = ImVec2(std::max(box.x - labels.x, 8.0f), std::max(box.y - labels.y, 8.0f));
    }
    for (MatrixRequest* r : requests) {
        r->max_size = max_size;
        r->text_font = readable_font(*r, ctx);  // the cells are now smaller than the font was chosen for
    }
}

// The smallest cell side among the requests as sized.
float smallest_cell(const std::vector<MatrixRequest*>& requests, const DrawContext& ctx) {
    float cell = 1e9f;
    for (const MatrixRequest* r : requests) {
        const int rows = static_cast<int>(r->values->rows()), cols = static_cast<int>(r->values->cols());
        const ImVec2 heat = heatmap_size_of(*r, ctx);
        cell = std::min({cell, heat.x / static_cast<float>(cols), heat.y / static_cast<float>(rows)});
    }
    return cell;
}

}  // namespace

float card_gap() { return ImGui::GetStyle().ItemSpacing.x * 3.0f; }

CardGrid fit_card_grid(const std::vector<MatrixRequest*>& requests, ImVec2 room,
                       const std::function<float(float card_w)>& around, const DrawContext& ctx) {
    const size_t n = requests.size();
    const float row_gap = ImGui::GetStyle().ItemSpacing.y;
    CardGrid best;
    float best_cell = -1.0f;
    for (size_t rows = 1; rows <= std::max<size_t>(n, 1); ++rows) {
        CardGrid grid;
        grid.per_row = (n + rows - 1) / rows;
        grid.card_w = room.x / static_cast<float>(std::max<size_t>(grid.per_row, 1));
        const ImVec2 box(grid.card_w - card_gap(),
                         room.y / static_cast<float>(rows) - around(grid.card_w) - row_gap);
        size_requests(requests, box, ctx);
        const float cell = smallest_cell(requests, ctx);
        if (cell > best_cell) {
            best_cell = cell;
            best = grid;
        }
    }
    const size_t rows = (n + best.per_row - 1) / std::max<size_t>(best.per_row, 1);
    size_requests(requests,
                  ImVec2(best.card_w - card_gap(),
                         room.y / static_cast<float>(std::max<size_t>(rows, 1)) - around(best.card_w) - row_gap),
                  ctx);
    return best;
}

}  // namespace app
