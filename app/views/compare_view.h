#pragma once
// The Compare tab: two ways of doing the same thing side by side with the same colour
// scale, and their difference. Masking needs only the run on screen; the other
// comparisons compute their pair of settings on two workers of their own, so the UI
// thread never waits for them.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "state/view_state.h"
#include "views/pipeline_view.h"
#include "state/live_run.h"
#include "state/worker.h"

namespace app {

class CompareView {
public:
    explicit CompareView(std::function<void()> wake) : workers_{Worker(wake), Worker(wake)} {}

    // Asks for the comparison's runs when the run on screen or the kind changed; takes
    // finished ones. Call once a frame.
    void update(const ViewState& c, const LiveRun& live);
    bool computing() const;
    // Why the comparison cannot be shown, or empty.
    const std::string& error() const { return error_; }

    // Scrolls to the card of session.scroll_to_stage (and clears it) when it draws it.
    void draw(ViewState& c, LiveRun& live, const DrawContext& ctx, const StageMarks* marks,
              HeatmapRegistry& shown);

private:
    struct Side {
        std::string label;          // of the run shown
        std::string pending_label;  // of the run asked for
        uint64_t id = 0;            // of the request whose outcome counts
        std::shared_ptr<const attn::Run> run;
        std::string error;
    };
    std::string& scroll_target(LiveRun& live);
    void draw_masking(LiveRun& live, const DrawContext& ctx, const StageMarks* marks,
                      HeatmapRegistry& shown);
    void draw_pair(ViewState& c, LiveRun& live, const DrawContext& ctx, const StageMarks* marks,
                   HeatmapRegistry& shown);

    Worker workers_[2];
    Side sides_[2];
    std::optional<attn::ComparisonKind> kind_;
    uint64_t for_run_version_ = UINT64_MAX;
    int for_head_ = -1;
    bool fit_ = false;  // focus: every card on screen at once, in as few rows as fills it
    attn::StageList masking_;  // compare_masking of the selected head
    std::string error_;
    uint64_t version_ = 1;     // changes whenever what the heatmaps show changes
    std::string no_scroll_;    // the scroll target handed out while results are still coming
};

}  // namespace app
