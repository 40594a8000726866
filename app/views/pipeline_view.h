#pragma once
// The view of a run: every head's weights side by side (click one to select it) and
// the selected head's pipeline, stage by stage in the order the forward pass
// computes them. It draws whatever stages the trace holds, for any variant.
#include <map>
#include <optional>
#include <string>

#include "views/matrix_widget.h"
#include "attention/pipeline.h"
#include "state/frame_report.h"

namespace app {


// What the view derives from a run and would otherwise recompute every frame: the
// colour range of each matrix (a scan of up to millions of values) and axis labels.
class ViewMemo {
public:
    const ColorScale& scale(const attn::Stage& stage, uint64_t run_version);
    const std::vector<std::string>& labels(const attn::Run& run, attn::Axis axis, int count, uint64_t run_version);

private:
    void forget_older_than(uint64_t run_version);
    uint64_t version_ = UINT64_MAX;
    std::map<const attn::Matrix*, ColorScale> scales_;
    std::map<std::pair<int, int>, std::vector<std::string>> labels_;
};

// Returns the head clicked, if any.
std::optional<int> draw_head_strip(const attn::Run& run, int shown_head, const DrawContext& ctx,
                                   HeatmapRegistry& shown);
// `head` must be a head of `run` (LiveRun::shown_head()).
// Scrolls to the stage named `scroll_to` (and clears it) when it draws that stage;
// outlines `marks` on its stage and frames that stage's heatmap.
void draw_pipeline(const attn::Run& run, int head, const DrawContext& ctx, ViewMemo& memo, std::string& scroll_to,
                   HeatmapRegistry& shown, const StageMarks* marks = nullptr);

}  // namespace app
