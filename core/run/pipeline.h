#pragma once
// Settings -> tokens -> input vectors -> attention trace: the whole path a user
// sees, shared by the CLI and the app.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/user_error.h"
#include "attention/embedding.h"
#include "attention/forward_steps.h"
#include "run/memory_budget.h"
#include "settings/settings.h"
#include "text/tokenizer.h"
#include "attention/trace.h"

namespace attn {

struct ModelRun;  // run/model_run.h

struct Run {
    Tokenized tokens;
    std::optional<Tokenized> tokens2;  // cross-attention's second text
    std::string embedding;             // what was used: "book" or "random"
    int64_t vocab_size = 0;            // rows of the token embedding table ("random")
    Trace trace;                       // model stages start with the embedding stages
    // A model's run, of which this Run shows one layer's attention (run/model_run.h:
    // layer_view); null for the chapter 3 module.
    std::shared_ptr<const ModelRun> model;
};

// Thrown for settings that cannot produce a trace; the message is one line for a user.
struct InputError : UserError {
    using UserError::UserError;
};

// The texts as tokens and input vectors: the part of a run that only the text,
// tokenizer and embedding settings change (not the seed, d_out, heads, dropout, ...).
struct Embedded {
    Tokenized tokens;
    std::optional<Tokenized> tokens2;
    std::string embedding;             // "book" or "random"
    int64_t vocab_size = 0;
    std::vector<EmbeddingStages> stages;  // one per text
};

AttentionConfig attention_config(const Settings& s);  // resolves defaults (d_out_v)

// True when a and b give the same Embedded, so a front end can keep it across
// changes of the attention controls (a 50257 x 768 table takes ~0.2 s to draw).
bool same_embedding(const Settings& a, const Settings& b);
// Both refuse, before anything large is allocated, what exceeds `budget`
// (memory_budget.h; by default the machine's, or the settings' --memory-budget).
Embedded embed_texts(const Settings& s, const Budget& budget, const KeptStages& keep = {});
// What a run of `s` will cost, from its token counts (the texts are only tokenized).
WorkEstimate estimate_run(const Settings& s);
Embedded embed_texts(const Settings& s);
// `keep`: the stages of each head the run's trace holds (kept_stages.h; by default all).
Run attend(const Settings& s, const Embedded& e, const KeptStages& keep = {});

// attend() a step at a time (attention/forward_steps.h: the projections, each head, the
// heads combined): the browser page runs a step between frames. The same Run, bit for
// bit. `e` stays where it is until take().
class AttendSteps {
public:
    AttendSteps(const Settings& s, const Embedded& e, const Budget& budget, const KeptStages& keep);
    // recompute_dropout() on a copy of `base` a step at a time (the dropout drawn, each head,
    // the heads combined; each head's stages copied in its step): a dropout change on a
    // long run.
    AttendSteps(std::shared_ptr<const Run> base, const Settings& s);
    int steps() const { return forward_.steps(); }
    int steps_done() const { return forward_.steps_done(); }
    std::string next_step() const { return forward_.next_step(); }
    bool done() const { return forward_.done(); }
    void step() { forward_.step(); }
    void run_rest() { forward_.run_rest(); }
    Run take();  // once done

private:
    Run run_;  // its trace is forward_'s until take()
    ForwardSteps forward_;
    const Embedded* embedded_ = nullptr;  // a full run's (null: a rerun of the output)
};

// The whole forward path. Throws std::runtime_error subclasses (InputError,
// ArgsError, ConfigError, TokenizeError) whose what() is a one-line message.
Run compute(const Settings& s);
Run compute(const Settings& s, const Budget& budget, const KeptStages& keep = {});

// Reruns only what follows the softmax weights (dropout, context, output): what a
// change of the dropout rate, training mode or dropout seed needs.
void recompute_dropout(Run& run, const Settings& s);

}  // namespace attn
