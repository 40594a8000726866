#include "state/worker.h"

// The browser's worker. A page served as plain static files has no threads (wasm threads
// need the server's cross-origin isolation headers), so the jobs run on the page's one
// thread, between frames: a job the engine's estimate puts within the frame's budget
// runs at once and its frame shows it; a longer one (a model, a long text) waits until
// a frame has shown "computing…", then runs before the next. A model's full run goes in
// steps (a transformer block, a part of the logits), and a chapter 3 module's too (its
// projections, a head, the heads combined: attn::AttendSteps), as many between two frames
// as fit in slice_ (12 ms): the page keeps drawing, with the run's progress, while it computes.
#include "run/memory_budget.h"

namespace app {

namespace {
// The estimate is for native code on two cores; wasm runs one thread, without FMA, a few
// times slower (docs/speed.md measures it).
constexpr double kWasmSlowdown = 4.0;
}  // namespace

const bool Worker::kChapterRunsInSteps = true;  // a head a step: the page draws between them

Worker::Worker(std::function<void()> wake) : wake_(std::move(wake)) {}

Worker::~Worker() = default;

uint64_t Worker::submit(attn::Settings settings, std::shared_ptr<const attn::Run> base, int detail_head,
                        bool overview_first) {
    const uint64_t id = next_id_++;
    const bool loads = session_.loads_model(settings);
    activity_ = loads ? "loading " + *settings.model + "…" : "computing…";
    waiting_ = Job{id, std::move(settings), std::move(base), detail_head, overview_first};
    job_announced_ = false;
    return id;
}

std::optional<Outcome> Worker::take() {
    const auto slice_end = std::chrono::steady_clock::now() + slice_;
    bool started = false;
    if (!done_ && !stepping_ && waiting_) {
        if (job_announced_) {
            const Job job = std::move(*waiting_);
            waiting_.reset();  // one submitted meanwhile waits for this one, as on the desktop
            done_ = start_job(job);
            started = true;
        } else {
            job_announced_ = true;  // the frame after this one shows "computing…"; the next runs it
        }
    }
    // A run in steps: those that fit in this frame's slice; at least one when the slice
    // did not start it (a model's loading may have taken the slice).
    for (bool first = !started; !done_ && stepping_ && (first || std::chrono::steady_clock::now() < slice_end);
         first = false)
        done_ = step_job();
    std::optional<Outcome> out = std::move(done_);
    done_.reset();
    return out;
}

bool Worker::busy() const { return waiting_.has_value() || stepping_.has_value(); }

bool Worker::wait_idle(std::chrono::microseconds limit) {
    if (stepping_) return false;  // take() goes on with it, a slice a frame
    if (!waiting_) return true;
    const Job& job = *waiting_;
    bool fits = false;
    if (!job.settings.model) {
        // Bytes bound tokens from above, for every tokenizer. A dropout change on the run
        // on screen (job.base) is estimated as its whole forward: a long one goes in steps.
        const attn::Run* base = job.base.get();
        const auto size = [](const auto& v) { return static_cast<int64_t>(v.size()); };
        const int64_t tokens = base ? size(base->tokens.ids) : size(job.settings.text);
        const int64_t tokens2 = base ? (base->tokens2 ? size(base->tokens2->ids) : 0)
                                     : (job.settings.text2 ? size(*job.settings.text2) : 0);
        const attn::KeptStages keep =
            attn::RunSession::stages_to_keep(job.settings, tokens, tokens2, job.detail_head, job.overview_first);
        const double seconds = attn::estimate_work(job.settings, tokens, tokens2, keep).forward_seconds * kWasmSlowdown;
        fits = seconds * 1e6 < static_cast<double>(limit.count());
    }
    if (!fits) {
        job_announced_ = true;  // this frame is drawn with "computing…"
        return false;
    }
    done_ = run_job(job);
    waiting_.reset();
    return true;
}

}  // namespace app
