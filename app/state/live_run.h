#pragma once
// The live run: the control values, the last run that worked (kept on screen while
// an impossible combination is explained), the error of the newest settings, and the
// background recompute that connects them. (A session is the saved file: session_io.h.)
#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "state/control_values.h"
#include "state/worker.h"

namespace app {

class LiveRun {
public:
    LiveRun(const attn::Settings& initial, std::function<void()> wake);

    ControlValues controls;
    std::string scroll_to_stage;  // the pipeline scrolls to this stage once, then clears it
    CorpusField corpus;           // the corpus path being typed (controls.corpus_file is the one in use)
    int generating = 0;           // greedy tokens still to append to a model's text, one run each

    // Replaces every setting, those without a control too (a lesson step's, a loaded
    // session's), and recomputes.
    void apply_settings(const attn::Settings& s);
    // What the controls ask for now, and what the run on screen was computed from.
    attn::Settings settings() const { return settings_from(controls, fixed_); }
    const attn::Settings& run_settings() const { return run_settings_; }

    // Call once a frame: takes a finished run, and asks for a new one when the
    // controls changed since the last request (never otherwise). True when it asked.
    // `take` false: only asks (a second call in a frame; the browser's worker computes
    // when asked for a run, and should do so once a frame).
    bool update(bool take = true);
    // The files the controls' run needs, while they are on their way (the browser page's
    // download of the shipped model): nothing is asked of the worker meanwhile, and
    // `progress` is the line shown ("downloading sotu-small: 5.1 of 22.9 MB…"); `failed`,
    // the download's error, is shown as the run's would be. Both empty: the files are here.
    void files_pending(std::string progress, std::string failed = "") {
        pending_progress_ = std::move(progress);
        pending_error_ = std::move(failed);
    }
    // Waits at most `limit` for the run asked for; true when it is ready to take.
    bool wait_for_run(std::chrono::microseconds limit) { return worker_.wait_idle(limit); }
    // The browser's: how long a frame goes on with a run in steps (Worker::set_slice).
    void set_work_slice(std::chrono::microseconds slice) { worker_.set_slice(slice); }

    // The head the user asked for (head strip, a lesson step, a session file) may not
    // exist in the run on screen: a step that selects head 2 arrives before the run
    // with its heads does. Views draw shown_head(), which always exists; the wish is
    // kept, so the head returns when a run has it again.
    void select_head(int head) { wanted_head_ = std::max(0, head); }
    int shown_head() const;

    const attn::Run* run() const { return run_.get(); }
    uint64_t run_version() const { return run_version_; }  // changes with every new run
    // Why the newest request could not run: empty while it computes, and once it ran.
    const std::string& error() const { return pending_error_.empty() ? error_ : pending_error_; }
    bool computing() const { return worker_.busy() || !pending_progress_.empty(); }
    // "loading gpt2…", "computing…", a download's progress
    std::string activity() const { return pending_progress_.empty() ? worker_.activity() : pending_progress_; }
    // The running request's steps done of its steps (a model's full run); total 0: not counted.
    WorkProgress progress() const { return pending_progress_.empty() ? worker_.progress() : WorkProgress{}; }
    // A GPT model's run, when the run on screen is one (its layer is run()).
    const attn::ModelRun* model_run() const { return run_ ? run_->model.get() : nullptr; }
    double last_compute_ms() const { return last_compute_ms_; }
    bool last_was_dropout_only() const { return last_dropout_only_; }
    // How many model runs on screen so far came from the KV cache (extend_model_run): the
    // full run that brings the shown head's stages follows each at once, so a test reads
    // this count rather than catch the extended run on screen.
    uint64_t extended_runs() const { return extended_runs_; }
    // When the run on screen was asked for (to measure change-to-view latency).
    std::chrono::steady_clock::time_point run_requested_at() const { return run_requested_at_; }

private:
    bool ask_for_shown_head();
    void submit(attn::Settings s, std::shared_ptr<const attn::Run> base, int detail_head, bool overview_first);
    int wanted_head_ = 0;
    int requested_detail_head_ = -1;
    attn::Settings fixed_;  // what the controls do not edit, from the command line
    ControlValues requested_controls_;
    bool requested_any_ = false;
    Worker worker_;
    std::shared_ptr<const attn::Run> run_;
    attn::Settings run_settings_;
    uint64_t run_version_ = 0;
    std::string error_;
    std::string pending_progress_, pending_error_;
    double last_compute_ms_ = 0.0;
    bool last_dropout_only_ = false;
    uint64_t extended_runs_ = 0;
    uint64_t last_request_id_ = 0;
    std::chrono::steady_clock::time_point last_request_at_, run_requested_at_;
};

}  // namespace app
