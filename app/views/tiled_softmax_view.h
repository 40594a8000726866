#pragma once
// The tiled softmax tab: what FlashAttention computes, as a stepper. The shown head's
// weights and context are built one tile of keys at a time from its queries, keys and
// values, with each row's running maximum m and sum l (attention/online_softmax.h); the
// last tile ends at the ordinary softmax, and the tab prints the difference.
#include <cstdint>
#include <optional>
#include <string>

#include "attention/online_softmax.h"
#include "run/pipeline.h"
#include "state/frame_report.h"
#include "views/matrix_widget.h"

namespace app {

class TiledSoftmaxView {
public:
    void draw(const attn::Run& run, uint64_t run_version, int head, const DrawContext& ctx, FrameReport& report);

private:
    void update(const attn::Run& run, uint64_t run_version, int head);

    int tile_ = 2, tiles_ = 1;  // keys per tile, tiles done
    uint64_t version_ = UINT64_MAX;
    int computed_tile_ = -1, computed_tiles_ = -1, computed_head_ = -1;
    std::optional<attn::OnlineSoftmaxInput> input_;
    std::optional<attn::OnlineSoftmaxState> state_;
    float weights_difference_ = -1.0f, context_difference_ = -1.0f;  // after the last tile
    std::string error_;
};

}  // namespace app
