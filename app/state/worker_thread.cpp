#include "state/worker.h"

// The desktop's worker: a thread of its own, so that a long run never freezes the
// window. (The browser's page has no threads without cross-origin isolation:
// worker_frames.cpp runs the same jobs between frames.)
#include "numerics/memory.h"

namespace app {

const bool Worker::kChapterRunsInSteps = false;  // this thread runs the heads at once, in parallel

Worker::Worker(std::function<void()> wake) : wake_(std::move(wake)), thread_([this] { loop(); }) {}

Worker::~Worker() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
}

uint64_t Worker::submit(attn::Settings settings, std::shared_ptr<const attn::Run> base, int detail_head,
                        bool overview_first) {
    uint64_t id;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        id = next_id_++;
        waiting_ = Job{id, std::move(settings), std::move(base), detail_head, overview_first};
    }
    cv_.notify_one();
    return id;
}

std::optional<Outcome> Worker::take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<Outcome> out = std::move(done_);
    done_.reset();
    return out;
}

bool Worker::busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    // An outcome not yet taken counts: a run that ends while a frame is drawn is taken at
    // the next frame's start, and the state file written meanwhile must not say "idle".
    return running_ || waiting_.has_value() || done_.has_value();
}

bool Worker::wait_idle(std::chrono::microseconds limit) {
    std::unique_lock<std::mutex> lock(mutex_);
    return idle_cv_.wait_for(lock, limit, [this] { return !running_ && !waiting_; });
}

void Worker::loop() {
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            // While sliders move, runs follow each other and reuse the freed memory;
            // once nothing new has come for a while, the last runs' memory goes back.
            if (!cv_.wait_for(lock, kIdleBeforeTrim, [this] { return stop_ || waiting_; })) {
                if (computed_since_trim_) attn::return_freed_memory();
                computed_since_trim_ = false;
                cv_.wait(lock, [this] { return stop_ || waiting_; });
            }
            if (stop_) return;
            job = std::move(*waiting_);
            waiting_.reset();
            running_ = true;
            activity_ = "computing…";
        }
        Outcome out = run_job(job);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = std::move(out);
            running_ = false;
            computed_since_trim_ = true;
        }
        idle_cv_.notify_all();
        wake_();
    }
}

}  // namespace app
