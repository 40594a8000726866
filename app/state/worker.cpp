#include "state/worker.h"

#include <algorithm>
#include <new>

#include "numerics/memory.h"

namespace app {

std::string Worker::activity() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_ || waiting_ || progress_.total > 0 ? activity_ : "";
}

WorkProgress Worker::progress() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return progress_;
}

void Worker::say(const std::string& activity) {
    std::lock_guard<std::mutex> lock(mutex_);
    activity_ = activity;
}

void Worker::show_progress() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!session_.stepping()) {
        progress_ = WorkProgress{};
        activity_ = "computing…";  // what a request waiting behind the run says
        return;
    }
    progress_ = WorkProgress{session_.steps_done(), session_.steps()};
    activity_ = session_.next_step() + "…";
}

namespace {

// Runs `work`; an exception becomes `out`'s one-line error. True when it ran to its end.
template <class Work>
bool guarded(Outcome& out, Work&& work) {
    try {
        work();
        return true;
    } catch (const std::bad_alloc&) {
        // The memory budget refuses what cannot fit before it starts; this is what
        // is left when the machine has less free than the budget assumed.
        out.error = "out of memory: lower the text length, heads, d_in or d_out";
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    out.run.reset();
    return false;
}

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Outcome Worker::run_job(const Job& job) {
    std::optional<Outcome> out = start_job(job);
    while (!out) out = step_job();
    return std::move(*out);
}

std::optional<Outcome> Worker::start_job(const Job& job) {
    Outcome out;
    out.id = job.id;
    out.settings = job.settings;
    out.dropout_only = job.base != nullptr;
    const auto start = std::chrono::steady_clock::now();
    if (session_.loads_model(job.settings)) say("loading " + *job.settings.model + "…");
    const bool ran = guarded(out, [&] {
        attn::RunSession::Request request;
        request.settings = job.settings;
        request.base = job.base;
        request.detail_head = job.detail_head;
        request.overview_first = job.overview_first;
        out.run = session_.start(request);
    });
    out.compute_ms = ms_since(start);
    if (!ran) session_.drop();  // a run in steps whose start failed
    if (!ran || out.run || !session_.stepping()) {
        show_progress();
        return out;
    }
    stepping_ = std::move(out);
    show_progress();
    return std::nullopt;
}

std::optional<Outcome> Worker::step_job() {
    Outcome& out = *stepping_;
    const auto start = std::chrono::steady_clock::now();
    const bool ran = guarded(out, [&] { out.run = session_.step(); });
    out.compute_ms += ms_since(start);
    if (ran && !out.run) {
        show_progress();
        return std::nullopt;
    }
    if (!ran) session_.drop();
    Outcome done = std::move(out);
    stepping_.reset();
    show_progress();
    return done;
}

}  // namespace app
