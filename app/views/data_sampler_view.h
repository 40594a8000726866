#pragma once
// Chapter 2's data sampling made visible: the text's ids, max_length and stride
// sliders, and the (input -> target) pairs a GPTDatasetV1 would give, with their
// tokens. The pairs are recomputed only when the run or the sliders change.
#include <cstdint>
#include <string>
#include <vector>

#include "views/matrix_widget.h"
#include "run/pipeline.h"
#include "text/input_target_pairs.h"
#include "state/widget_rects.h"
#include "state/frame_report.h"

namespace app {

class DataSamplerView {
public:
    int max_length = 4;  // the book's example
    int stride = 1;

    // A collapsible section; the pairs are counted (for the report) even when it is closed.
    void draw(const attn::Run& run, uint64_t run_version, const DrawContext& ctx, WidgetRects& rects,
              WindowReport& report);

private:
    void update(const attn::Run& run, uint64_t run_version);
    uint64_t version_ = UINT64_MAX;
    int computed_max_length_ = 0, computed_stride_ = 0;
    std::vector<attn::InputTargetPair> pairs_;
    std::string error_;
};

}  // namespace app
