#include "views/tiled_softmax_view.h"

#include <algorithm>
#include <cmath>

#include "graphics/ui_colors.h"
#include "views/control_widgets.h"
#include "views/stage_labels.h"
#include "views/stepper_parts.h"
#include "views/wrapping.h"

namespace app {

namespace {

// Beyond this many tokens each step would cost a T x S pass per frame on the UI thread.
constexpr Eigen::Index kMaxTokens = 1024;

}  // namespace

void TiledSoftmaxView::update(const attn::Run& run, uint64_t run_version, int head) {
    if (run_version != version_ || head != computed_head_) {
        version_ = run_version;
        computed_head_ = head;
        computed_tile_ = computed_tiles_ = -1;
        input_.reset();
        state_.reset();
        error_.clear();
        const attn::HeadTrace& h = run.trace.heads.at(static_cast<size_t>(head));
        if (run.trace.model.at("inputs").rows() > kMaxTokens)
            error_ = "the stepper shows texts of up to " + std::to_string(kMaxTokens) + " tokens";
        else if (!h.find("weights") || (h.find("queries") == nullptr) != (h.find("scores") == nullptr))
            error_ = "this head's stages are not kept";
        else
            input_ = attn::online_softmax_input(run.trace, head);
    }
    if (!input_) return;
    const int keys = static_cast<int>(input_->keys.rows());
    tile_ = std::clamp(tile_, 1, keys);
    const int total = (keys + tile_ - 1) / tile_;
    tiles_ = std::clamp(tiles_, 0, total);
    if (tile_ == computed_tile_ && tiles_ == computed_tiles_) return;
    if (tile_ != computed_tile_) {  // the end state, once per tile size: what the last step reaches
        const attn::OnlineSoftmaxState done = attn::online_softmax(*input_, tile_, total);
        const attn::HeadTrace& h = run.trace.heads[static_cast<size_t>(head)];
        weights_difference_ = (done.weights_so_far - h.at("weights")).cwiseAbs().maxCoeff();
        context_difference_ = (done.context_so_far - h.at("context")).cwiseAbs().maxCoeff();
        if (!h.find("queries"))  // simplified's context is its output
            context_difference_ = (done.context_so_far - run.trace.output[0]).cwiseAbs().maxCoeff();
    }
    computed_tile_ = tile_;
    computed_tiles_ = tiles_;
    state_ = attn::online_softmax(*input_, tile_, tiles_);
}

void TiledSoftmaxView::draw(const attn::Run& run, uint64_t run_version, int head, const DrawContext& ctx,
                            FrameReport& report) {
    update(run, run_version, head);
    StepperReport& r = report.tiled;
    r.shown = true;
    r.error = error_;
    ImGui::PushFont(ctx.fonts.heading);
    text_wrapped("Tiled, online softmax: how FlashAttention computes %s", head_name(run, head).c_str());
    ImGui::PopFont();
    text_wrapped("The keys are taken a tile at a time. Each row keeps its largest score so far (m), the sum of "
                 "exp(score − m) (l) and a running output O. When a tile raises m, what was summed is scaled "
                 "down by exp(m_old − m_new). No row of scores is ever held whole, yet the last tile gives the "
                 "ordinary softmax.");
    if (!error_.empty() || !state_) {
        ImGui::TextColored(ui_color(ui_colors().error), "No stepper: %s.", error_.c_str());
        return;
    }
    const attn::OnlineSoftmaxState& s = *state_;
    caption("keys per tile");
    step_slider("tile_size", tile_, 1, static_cast<int>(input_->keys.rows()), "%d keys", ctx, report.widgets);
    caption("tiles done");
    step_slider("tile_step", tiles_, 0, s.tiles_total, "%d done", ctx, report.widgets);
    r.step = s.tiles_done;
    r.steps = s.tiles_total;
    r.cached = s.tile;
    r.max_difference = weights_difference_;
    if (s.tiles_done == 0) text_wrapped("No tile yet: every row has m = −∞ and l = 0.");
    else
        text_wrapped("Tile %d of %d: keys %ld–%ld. Every weight below is exp(score − m) / l with this step's m and "
                     "l; keys not yet reached are hatched.",
                     s.tiles_done, s.tiles_total, s.first_key + 1, s.last_key);
    const std::vector<std::string> rows = axis_labels(run, attn::Axis::Tokens, static_cast<int>(s.running_max.rows()));
    const std::vector<std::string> m_col = {"m"}, l_col = {"l"};
    // A row that has seen only masked keys has m = −∞: drawn as hidden.
    const attn::Matrix m_shown = s.running_max.unaryExpr([](float v) { return std::isinf(v) ? 0.0f : v; });
    const attn::Matrix m_unset = s.running_max.unaryExpr([](float v) { return std::isinf(v) ? 1.0f : 0.0f; });
    const ColorScale probability{ColorMode::Sequential, 0.0f, 1.0f};
    // Masked keys, and keys no tile has reached yet, are drawn as hidden rather than as 0.
    attn::Matrix hidden = input_->mask.size() ? input_->mask : attn::Matrix::Zero(s.weights_so_far.rows(), s.weights_so_far.cols());
    hidden.rightCols(hidden.cols() - s.last_key).setOnes();
    draw_titled_matrices({{"m: row maximum so far", "tiled/m", &m_shown, signed_scale(m_shown), &rows, &m_col, &m_unset},
                          {"l: sum of exp(score − m)", "tiled/l", &s.running_sum, signed_scale(s.running_sum), &rows, &l_col},
                          {"weights so far", "tiled/weights", &s.weights_so_far, probability, &rows, nullptr, &hidden},
                          {"context so far: O / l", "tiled/context", &s.context_so_far, signed_scale(s.context_so_far), &rows}},
                         240.0f * ctx.ui_scale, ctx, report.heatmaps);
    text_wrapped("After the last tile: largest difference to the ordinary softmax's weights %.3g, to the "
                 "context %.3g (float rounding).",
                 static_cast<double>(weights_difference_), static_cast<double>(context_difference_));
}

}  // namespace app
