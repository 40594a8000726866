#pragma once
// A module's forward a step at a time: the projections, then each head, then the heads
// combined. The same functions as forward() in the same order, so the same stages bit for
// bit; what the browser's page runs between frames, where there is one thread and a long
// run (12 heads over 1,024 tokens) must not freeze the window (app/state/worker_frames.cpp).
#include <memory>
#include <string>

#include "attention/attention.h"
#include "attention/kept_stages.h"

namespace attn {

class ForwardSteps {
public:
    // x2: cross-attention's second text (null: the module's random rows). The inputs stay
    // where they are until the forward is done (the caller's embedding holds them).
    ForwardSteps(AttentionModule module, const Matrix& x, const Matrix* x2, KeptStages keep);
    // attention_output() on a copy of `base` a step at a time (output_work: the dropout
    // drawn, each head, the heads combined), each head's stages copied in its step: a
    // dropout change's rerun.
    ForwardSteps(std::shared_ptr<const Trace> base, const AttentionConfig& cfg);
    ForwardSteps(ForwardSteps&&) noexcept;
    ForwardSteps& operator=(ForwardSteps&&) noexcept;
    ~ForwardSteps();

    int steps() const;       // the projections (or the dropout), one a head, the heads combined
    int steps_done() const;
    std::string next_step() const;  // "projections" or "dropout", "head 3 of 12", "combining the heads"
    bool done() const;
    void step();      // the next one (throws what forward() throws)
    void run_rest();  // every step left, the heads in parallel where worth it (as forward())
    Trace take();  // once done

private:
    // What the closures of the variant's HeadWork point into: kept in one place for them.
    struct State;
    std::unique_ptr<State> state_;
    void begin_rerun();
    void release_work();
    int done_ = 0;
};

}  // namespace attn
