#include "state/live_run.h"

#include <algorithm>

namespace app {

LiveRun::LiveRun(const attn::Settings& initial, std::function<void()> wake)
    : controls(initial), fixed_(initial), worker_(std::move(wake)) {
    corpus.path = initial.corpus_file.value_or("");
}

void LiveRun::apply_settings(const attn::Settings& s) {
    const std::optional<uint64_t> budget = fixed_.memory_budget;  // the command line's, kept for the session
    fixed_ = s;
    if (!fixed_.memory_budget) fixed_.memory_budget = budget;
    controls = s;
    corpus = CorpusField{s.corpus_file.value_or(""), ""};
    requested_any_ = false;  // the controls may be unchanged while fixed_ is not
}

int LiveRun::shown_head() const {
    const int heads = run_ ? static_cast<int>(run_->trace.heads.size()) : 0;
    return heads > 0 ? std::min(wanted_head_, heads - 1) : 0;
}

bool LiveRun::update(bool take) {
    if (std::optional<Outcome> done = take ? worker_.take() : std::nullopt) {
        // Only the newest request's outcome decides what the error line says; an older
        // one that worked still replaces the view, so typing shows progress.
        const bool newest = done->id == last_request_id_;
        if (done->run) {
            run_ = std::move(done->run);
            run_settings_ = std::move(done->settings);
            ++run_version_;
            run_requested_at_ = last_request_at_;
            last_compute_ms_ = done->compute_ms;
            last_dropout_only_ = done->dropout_only;
            if (run_->model && run_->model->extended) ++extended_runs_;
            if (newest) error_.clear();
        } else if (newest) {
            error_ = done->error;
        }
    }
    if (!pending_progress_.empty() || !pending_error_.empty()) return false;  // the files first
    if (requested_any_ && controls == requested_controls_) return ask_for_shown_head();
    requested_controls_ = controls;
    requested_any_ = true;
    attn::Settings s = settings_from(controls, fixed_);
    const int heads = std::max(1, s.attention.heads);
    // From the weights on screen, when the run kept every head's (not only block means).
    const bool dropout_only = run_ && !s.model && attn::same_up_to(run_settings_, s, attn::Reruns::Attention) &&
                              run_->trace.kept.can_rerun_output(static_cast<int>(run_->trace.heads.size()));
    // A change of the controls: a run too long for every head's weights comes first
    // without any head's every stage (attn::RunSession::stages_to_keep), the shown head's next.
    submit(std::move(s), dropout_only ? run_ : nullptr, std::min(wanted_head_, heads - 1), /*overview_first=*/true);
    return true;
}

bool LiveRun::ask_for_shown_head() {
    // A long run holds every stage of one head only: another head on screen needs the
    // same run keeping its stages (its weights are drawn meanwhile). Not while the
    // controls ask for something impossible: the run that fixes them brings the head.
    if (!run_ || run_->trace.kept.everything || worker_.busy() || !error_.empty()) return false;
    const int head = shown_head();
    if (head == run_->trace.kept.detail_head || head == requested_detail_head_) return false;
    submit(run_settings_, nullptr, head, /*overview_first=*/false);
    return true;
}

void LiveRun::submit(attn::Settings s, std::shared_ptr<const attn::Run> base, int detail_head, bool overview_first) {
    last_request_at_ = std::chrono::steady_clock::now();
    // The error line is the newest request's: an older one's error describes settings the
    // controls have left. Kept until the next outcome, "the text is empty" stayed against a
    // text of 87 tokens for as long as requests followed each other faster than runs
    // ended, since none of those runs was the newest when it ended (issue 58).
    error_.clear();
    // What the newest request promised to bring, so that it is not asked for again.
    requested_detail_head_ = overview_first ? -1 : detail_head;
    last_request_id_ = worker_.submit(std::move(s), std::move(base), detail_head, overview_first);
}

}  // namespace app
