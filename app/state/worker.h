#pragma once
// Runs the engine off the UI thread, so that a long trace (T = 1024, d = 768, 12
// heads) never freezes the window: the view keeps drawing the last run meanwhile.
// Only the newest request matters: one waiting behind a running one is replaced.
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

#include "run/model_run.h"
#include "run/pipeline.h"
#include "model/model_source.h"

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
    // Otherwise the run keeps what stages_to_keep says.
    uint64_t submit(attn::Settings settings, std::shared_ptr<const attn::Run> base, int detail_head = 0,
                    bool overview_first = false);
    // Every stage of every head up to kKeepEverythingBytes. Past it every stage of
    // `detail_head` and every head's weights and values (the overview, and what a dropout
    // change reruns from) up to kKeepOverviewBytes; past that, as at 8192 tokens, the
    // other heads' weights as block means of at most kPreviewTexels a side: what the head
    // strip shows of them (a dropout change then reruns the forward). There, with
    // `overview_first`, no head keeps every stage: such a run comes sooner, and it and the
    // run on screen need not both hold a head's seven T x S stages (1.9 GB at 8192
    // tokens); the caller asks for the head next.
    static attn::KeptStages stages_to_keep(const attn::Settings& settings, int64_t tokens, int64_t tokens2,
                                           int detail_head, bool overview_first);
    static constexpr double kKeepEverythingBytes = 512.0 * (1 << 20);
    static constexpr double kKeepOverviewBytes = 1536.0 * (1 << 20);
    // The head strip draws a head at most 200 pixels a side at 1x, 600 at a presenter's 3x:
    // about a texel a pixel.
    static constexpr int kPreviewTexels = 512;
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
    // run_job in steps: start_job's outcome, or none when it started a model's run in
    // steps (stepping_), which step_job advances a step at a time until it gives one.
    std::optional<Outcome> start_job(const Job& job);
    std::optional<Outcome> step_job();
    struct Stepping {
        Outcome out;
        attn::Settings settings;  // the run's own (its layer and head clamped to the model's)
        std::optional<attn::ModelRunSteps> steps;  // a model's run
        std::optional<attn::AttendSteps> attend;   // a chapter 3 module's (the browser's only)
    };
    // Whether a chapter 3 run goes in steps too (a head a step): in the browser, whose one
    // thread draws the frames; the desktop's thread runs the heads at once, in parallel.
    static const bool kChapterRunsInSteps;
    std::optional<Stepping> stepping_;  // worker thread only
    void show_progress();               // stepping_'s, into activity_ and progress_
    // A chapter 3 module's run; null when it started one in steps (kChapterRunsInSteps).
    std::shared_ptr<attn::Run> compute(const attn::Settings& settings, int detail_head, bool overview_first);
    // A GPT model's run (settings.model): its layer settings.layer (0 when unset) as the
    // Run, head detail_head with every stage; null when it started a full run in steps.
    // With `append_only`, a text that keeps the last model run's first tokens is computed
    // from its KV cache (extend_model_run: one row a token after the edit; the detail
    // head's stages come with the next run).
    std::shared_ptr<attn::Run> compute_model(const attn::Settings& settings, int detail_head, bool append_only);

    // The model of the last model run (worker thread only): kept while only the text,
    // layer or head change; a 500 MB checkpoint takes ~0.3 s to read.
    std::optional<attn::LoadedModel> model_;
    // `s`'s tokens from the last model run's cache; null when they keep none of its first
    // tokens, need more steps than a full run costs, or cannot (fewer generated tokens,
    // other sampling settings, the context full, a picked position's next tokens needing
    // a full run).
    std::shared_ptr<const attn::ModelRun> append_to_last(const attn::Settings& s);
    size_t text_tokens(const attn::Settings& s) const;  // model_tokens' count
    // What model_ reads of `s` (attn::model_input_tokens: the token ids given, else the text
    // by its tokenizer); nothing where the run would refuse them (it says why).
    std::optional<attn::Tokenized> model_tokens(const attn::Settings& s) const;
    std::shared_ptr<const attn::ModelRun> last_model_run_;  // of model_, what an append extends
    std::string last_text_;  // its settings' text, token ids and generated tokens
    std::optional<std::string> last_ids_;
    int last_generate_ = 0;
    std::string activity_;   // guarded by mutex_
    WorkProgress progress_;  // guarded by mutex_

    // The texts' embedding of the last computed run (worker thread only): kept while
    // only attention controls change, since a 50257 x 768 table takes ~0.2 s to draw.
    std::optional<attn::Settings> embedded_for_;
    attn::Embedded embedded_;

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
