#include "attention/forward_steps.h"

#include <optional>
#include <stdexcept>

#include "attention/forward_parts.h"

namespace attn {

struct ForwardSteps::State {
    std::optional<AttentionModule> module;  // a forward's; none for a rerun of the output
    const Matrix* x = nullptr;
    const Matrix* x2 = nullptr;
    KeptStages keep;
    AttentionConfig cfg;  // the rerun's
    std::shared_ptr<const Trace> base;  // the rerun's: its heads are copied a head a step
    Trace trace;
    HeadWork work;  // after the first step
};

ForwardSteps::ForwardSteps(AttentionModule module, const Matrix& x, const Matrix* x2, KeptStages keep)
    : state_(new State{std::move(module), &x, x2, std::move(keep), {}, nullptr, Trace{}, HeadWork{}}) {}

ForwardSteps::ForwardSteps(std::shared_ptr<const Trace> base, const AttentionConfig& cfg)
    : state_(new State{std::nullopt, nullptr, nullptr, {}, cfg, std::move(base), Trace{}, HeadWork{}}) {
    State& s = *state_;
    static_cast<TraceCommon&>(s.trace) = *s.base;  // all but the heads' stages
    s.trace.heads.resize(s.base->heads.size());
}
ForwardSteps::ForwardSteps(ForwardSteps&&) noexcept = default;
ForwardSteps& ForwardSteps::operator=(ForwardSteps&&) noexcept = default;
ForwardSteps::~ForwardSteps() = default;

int ForwardSteps::steps() const {
    // Before the first step the module's heads (one where it has no --heads setting), or
    // the trace's.
    const State& s = *state_;
    const int heads = done_ > 0 ? s.work.heads : s.module ? s.module->cfg.heads : static_cast<int>(s.trace.heads.size());
    return heads + 2;
}

int ForwardSteps::steps_done() const { return done_; }

bool ForwardSteps::done() const { return done_ == steps(); }

std::string ForwardSteps::next_step() const {
    if (done_ == 0) return state_->module ? "projections" : "dropout";
    const int heads = state_->work.heads;
    if (done_ <= heads) return "head " + std::to_string(done_) + " of " + std::to_string(heads);
    return "combining the heads";
}

void ForwardSteps::step() {
    State& s = *state_;
    if (done()) throw std::logic_error("ForwardSteps::step: the forward is done");
    if (done_ == 0 && !s.module) {
        begin_rerun();
    } else if (done_ == 0) {
        s.trace = begin_forward(*s.module, *s.x, s.x2, s.keep);
        s.work = variant_info(s.module->cfg.variant).forward(*s.module, *s.x, s.x2, s.keep, s.trace);
    } else if (done_ <= s.work.heads) {
        s.work.attend(done_ - 1);
    } else {
        s.work.finish();
        release_work();
    }
    ++done_;
}

void ForwardSteps::run_rest() {
    if (done_ == 0) step();
    if (done_ != 1) {  // some heads done one at a time: the rest likewise
        while (!done()) step();
        return;
    }
    run_heads(state_->work);
    release_work();
    done_ = steps();
}

void ForwardSteps::begin_rerun() {
    State& s = *state_;
    std::vector<HeadTrace>& heads = s.trace.heads;
    if (!heads.empty()) heads[0] = s.base->heads[0];  // output_work reads its shapes
    s.work = output_work(s.trace, s.cfg);
    if (s.work.heads != static_cast<int>(heads.size())) {  // nothing reruns per head: copy them now
        for (size_t h = 1; h < heads.size(); ++h) heads[h] = s.base->heads[h];
        return;
    }
    // Each head's stages are copied where it reruns: in its own step, or on its thread.
    s.work.attend = [&s, rerun = std::move(s.work.attend)](int h) {
        if (h > 0) s.trace.heads[static_cast<size_t>(h)] = s.base->heads[static_cast<size_t>(h)];
        rerun(h);
    };
}

void ForwardSteps::release_work() {
    state_->work.attend = nullptr;  // what the heads read goes now
    state_->work.finish = nullptr;
    state_->base.reset();
}

Trace ForwardSteps::take() {
    if (!done()) throw std::logic_error("ForwardSteps::take: the forward is not done");
    return std::move(state_->trace);
}

}  // namespace attn
