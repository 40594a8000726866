#pragma once
// Runs the engine off the UI thread, so that a long trace (T = 1024, d = 768, 12
// heads) never freezes the window: the view keeps drawing the last run meanwhile.
// Only the newest request matters: one waiting behind a running one is replaced. What a
// request reuses and the work it needs are the engine's run session's (run/run_session.h);
// the worker keeps the thread, the queue and the progress line.
// Two ways to run the jobs, one per platform: worker_thread.cpp (the desktop: a thread)
// and worker_frames.cpp (the browser, which has no threads on a plain static host: a
// job that fits in a frame runs at once, a longer one after a frame has said so).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "run/run_session.h"

namespace app {

struct Outcome {
    uint64_t id = 0;
    attn::Settings settings;
    std::shared_ptr<const attn::Run> run;  // null when the settings cannot run
    std::string error;                     // the engine's one-line message
    bool dropout_only = false;
    double compute_ms = 0.0;
};

// How far the running request is, in steps: a model's full run counts its layers, its
// logits and its next tokens (model_run.h's ModelRunSteps); total 0: not counted.
struct WorkProgress {
    int done = 0, total = 0;
};

class Worker {
public:
    // `wake` is called from the worker thread when an outcome is ready (it should
    // wake the UI loop, e.g. glfwPostEmptyEvent).
    explicit Worker(std::function<void()> wake);
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    // With `base`, only the stages after the weights are recomputed on a copy of it.
    // Otherwise the run keeps what attn::RunSession::stages_to_keep says.
    uint64_t submit(attn::Settings settings, std::shared_ptr<const attn::Run> base, int detail_head = 0,
                    bool overview_first = false);
    std::optional<Outcome> take();  // the newest finished outcome, if any
    bool busy() const;              // a request is waiting or running, or its outcome not taken
    // What the running request is doing, for the view's progress line: "loading gpt2…"
    // while a model loads, "sotu-small: layer 3 of 4…" or "mha: head 3 of 12…" while its
    // run counts steps, else "computing…".
    std::string activity() const;
    WorkProgress progress() const;
    // Waits until nothing is waiting or running, at most `limit`; true when idle.
    bool wait_idle(std::chrono::microseconds limit);
    // The browser's: how long take() goes on with a run in steps, at least one step a
    // frame (a test gives 0: exactly one). The desktop's thread has no frames to share.
    void set_slice(std::chrono::microseconds slice) { slice_ = slice; }

private:
    struct Job {
        uint64_t id;
        attn::Settings settings;
        std::shared_ptr<const attn::Run> base;
        int detail_head = 0;
        bool overview_first = false;
    };
    void loop();
    Outcome run_job(const Job& job);  // the engine's answer to one request, or its error
    // run_job in steps: start_job's outcome, or none when it started a run in steps,
    // which step_job advances a step at a time until it gives one.
    std::optional<Outcome> start_job(const Job& job);
    std::optional<Outcome> step_job();
    // Whether a chapter 3 run goes in steps too (a head a step): in the browser, whose one
    // thread draws the frames; the desktop's thread runs the heads at once, in parallel.
    static const bool kChapterRunsInSteps;
    // What is reused between runs and the work a request needs (worker thread only).
    attn::RunSession session_{kChapterRunsInSteps};
    std::optional<Outcome> stepping_;   // the outcome of session_'s run in steps, while it goes
    void show_progress();               // session_'s, into activity_ and progress_
    void say(const std::string& activity);
    std::string activity_;   // guarded by mutex_
    WorkProgress progress_;  // guarded by mutex_

    std::function<void()> wake_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    mutable std::condition_variable idle_cv_;
    std::optional<Job> waiting_;
    std::optional<Outcome> done_;
    bool running_ = false;
    bool stop_ = false;
    bool computed_since_trim_ = false;
    static constexpr std::chrono::seconds kIdleBeforeTrim{2};
    uint64_t next_id_ = 1;
    std::thread thread_;         // the desktop's
    bool job_announced_ = false;  // the browser's: a frame has shown that the waiting job runs
    std::chrono::microseconds slice_{12000};  // the browser's: a run's steps between two frames
};

}  // namespace app
