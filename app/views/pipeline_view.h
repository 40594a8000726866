#pragma once
// The view of a run: every head's weights side by side (click one to select it) and
// the selected head's pipeline, stage by stage in the order the forward pass
// computes them. It draws whatever stages the trace holds, for any variant.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "views/matrix_widget.h"
#include "views/zoomed_matrix.h"
#include "run/pipeline.h"
#include "state/frame_report.h"

namespace app {


// What the view derives from a run and would otherwise recompute every frame: the
// colour range of each matrix (a scan of up to millions of values) and axis labels.
class ViewMemo {
public:
    const ColorScale& scale(const attn::Stage& stage, uint64_t run_version);
    const std::vector<std::string>& labels(const attn::Run& run, attn::Axis axis, int count, uint64_t run_version);
    ZoomedMatrix focus_zoom;  // the focus view's zoom, kept across runs of the same stage
    int scroll_frames = 0;    // frames a scroll to a stage has been asked for (scroll_to_card)

private:
    void forget_older_than(uint64_t run_version);
    uint64_t version_ = UINT64_MAX;
    std::map<const attn::Matrix*, ColorScale> scales_;
    std::map<std::pair<int, int>, std::vector<std::string>> labels_;
};

// Scrolls the view so that what is drawn next has its top at the view's top, over as
// many frames as that takes; clears `scroll_to` once done.
void scroll_to_card(std::string& scroll_to, ViewMemo& memo);

// One matrix of the pipeline: a stage of the trace, of a head or of the model.
struct PipelineCard {
    const attn::Stage* stage;
    const attn::HeadTrace* head;  // null for model stages
};
// The module's output is not a stage of the trace; it is drawn like one.
attn::Stage output_stage(const attn::Trace& t);
// The pipeline's matrices in the order the forward pass computes them: the model's
// stages before the heads, head `head`'s, those after the heads, then `output`
// (when not empty), which must outlive the cards.
std::vector<PipelineCard> pipeline_cards(const attn::Trace& t, int head, const attn::Stage& output);
// How a card's matrix is drawn in the pipeline (labels, scale, size, values).
MatrixRequest request_for(const attn::Run& run, const PipelineCard& card, const std::string& key, const DrawContext& ctx,
                          ViewMemo& memo);
// The hovered cell's exact value and arithmetic, as a tooltip.
void cell_tooltip(const attn::Run& run, const PipelineCard& card, const MatrixPlacement& p, const DrawContext& ctx);
// Reports a heatmap drawn at `p` under `name` for the state file.
void record(HeatmapRegistry& shown, const std::string& name, const MatrixPlacement& p, const attn::Matrix& m);

// Returns the head clicked, if any. `thumbnails`: one row of small unlabelled squares
// (focus mode) instead of the captioned strip with its legend.
std::optional<int> draw_head_strip(const attn::Run& run, int shown_head, const DrawContext& ctx,
                                   HeatmapRegistry& shown, bool thumbnails = false);
// `head` must be a head of `run` (LiveRun::shown_head()).
// Scrolls to the stage named `scroll_to` (and clears it) when it draws that stage;
// outlines `marks` on its stage and frames that stage's heatmap.
void draw_pipeline(const attn::Run& run, int head, const DrawContext& ctx, ViewMemo& memo, std::string& scroll_to,
                   HeatmapRegistry& shown, const StageMarks* marks = nullptr);

}  // namespace app
