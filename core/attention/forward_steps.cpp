#include "attention/forward_steps.h"

#include <stdexcept>

#include "attention/forward_parts.h"

namespace attn {

struct ForwardSteps::State {
    AttentionModule module;
    const Matrix& x;
    const Matrix* x2;
    KeptStages keep;
    Trace trace;
    HeadWork work;  // after the first step
};

ForwardSteps::ForwardSteps(AttentionModule module, const Matrix& x, const Matrix* x2, KeptStages keep)
    : state_(new State{std::move(module), x, x2, std::move(keep), Trace{}, HeadWork{}}) {}
ForwardSteps::ForwardSteps(ForwardSteps&&) noexcept = default;
ForwardSteps& ForwardSteps::operator=(ForwardSteps&&) noexcept = default;
ForwardSteps::~ForwardSteps() = default;

int ForwardSteps::steps() const {
    // Before the first step the module's heads (one where it has no --heads setting).
    const int heads = done_ > 0 ? state_->work.heads : state_->module.cfg.heads;
    return heads + 2;
}

int ForwardSteps::steps_done() const { return done_; }

bool ForwardSteps::done() const { return done_ == steps(); }

std::string ForwardSteps::next_step() const {
    if (done_ == 0) return "projections";
    const int heads = state_->work.heads;
    if (done_ <= heads) return "head " + std::to_string(done_) + " of " + std::to_string(heads);
    return "combining the heads";
}

void ForwardSteps::step() {
    State& s = *state_;
    if (done()) throw std::logic_error("ForwardSteps::step: the forward is done");
    if (done_ == 0) {
        s.trace = begin_forward(s.module, s.x, s.x2, s.keep);
        s.work = variant_info(s.module.cfg.variant).forward(s.module, s.x, s.x2, s.keep, s.trace);
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

void ForwardSteps::release_work() {
    state_->work.attend = nullptr;  // what the heads read goes now
    state_->work.finish = nullptr;
}

Trace ForwardSteps::take() {
    if (!done()) throw std::logic_error("ForwardSteps::take: the forward is not done");
    return std::move(state_->trace);
}

}  // namespace attn
