#pragma once
// What is reused from one run to the next, and the work a change of settings needs: the
// one place that decides it, for every front end (the app's worker, on the desktop's
// thread and between the page's frames; the CLI's model runs; lessons' model steps).
//   The chapter 3 module: the texts' embedding is kept while only attention settings
//     change (GPT-2's 50257 x 768 table takes ~0.2 s to draw); what each head keeps
//     follows the run's size (stages_to_keep); a dropout change reruns what follows the
//     weights of the run on screen.
//   A model: loaded once while its name (and gpt-ch4's seed) stays; a change's text
//     tokenized once; another position picked on the run on screen costs a row of the
//     output head (with_next_at); an edit that keeps the first tokens, or more generated
//     tokens, a cached step a token (extend_model_run, extend_generated); anything else
//     a full run in steps (ModelRunSteps: a layer a step).
// Not thread-safe: one thread uses it (the worker's).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "model/model_source.h"
#include "run/model_run.h"
#include "run/pipeline.h"

namespace attn {

class RunSession {
public:
    struct Request {
        Settings settings;
        // A dropout change: what follows the weights of this run, rerun on a copy of it.
        std::shared_ptr<const Run> base;
        int detail_head = 0;  // the head kept with every stage (a model's: the layer is settings.layer)
        // The chapter 3 module past kKeepOverviewBytes: no head's every stage yet (the caller
        // asks for the head next). A model: an edit may extend the last run from its cache.
        bool overview_first = false;
        // A model run as the app shows it: the generated tokens in view, settings.layer
        // (0 when unset) and detail_head clamped to the model's, a picked position past the
        // tokens showing the last token's. False (the CLI, lessons): the settings as given
        // (--layer/--head's head or none; what the model lacks refused in one line), and
        // with `generated_in_view` false the generated tokens after the text.
        bool as_shown = true;
        bool generated_in_view = true;
        std::optional<Budget> budget;  // budget_for(settings) when unset (the CLI's counts its output)
    };
    // `chapter_in_steps`: a chapter 3 run goes a head a step (the page, whose one thread
    // draws frames between them); else at once, its heads in parallel. `model`: one
    // already loaded (lessons load each once).
    explicit RunSession(bool chapter_in_steps, std::optional<LoadedModel> model = std::nullopt)
        : chapter_in_steps_(chapter_in_steps), model_(std::move(model)) {}

    // Starts `r`: its Run when it needs no steps, else null, and step() until one comes.
    // Throws the engine's one-line errors (the run in steps is then dropped).
    std::shared_ptr<Run> start(const Request& r);
    std::shared_ptr<Run> step();  // a step of the run in steps; its Run once done
    std::shared_ptr<Run> run(const Request& r);  // start, then every step: its Run
    bool stepping() const { return model_steps_.has_value() || attend_.has_value(); }
    void drop() {  // a run in steps that failed
        model_steps_.reset();
        attend_.reset();
    }
    // The run in steps: how far ("sotu-small: layer 3 of 4", "mha: head 3 of 12") and its
    // steps; empty and 0 when none.
    std::string next_step() const;
    int steps_done() const;
    int steps() const;
    // Whether `s` loads a model (another, or gpt-ch4 with another seed): seconds for a large one.
    bool loads_model(const Settings& s) const;
    // The last model run, whole (the CLI writes it; null before one).
    std::shared_ptr<const ModelRun> last_model_run() const { return last_model_run_; }

    // Every stage of every head up to kKeepEverythingBytes. Past it every stage of
    // `detail_head` and every head's weights and values (the overview, and what a dropout
    // change reruns from) up to kKeepOverviewBytes; past that, as at 8192 tokens, the
    // other heads' weights as block means of at most kPreviewTexels a side: what the head
    // strip shows of them (a dropout change then reruns the forward). There, with
    // `overview_first`, no head keeps every stage: such a run comes sooner, and it and the
    // run on screen need not both hold a head's seven T x S stages (1.9 GB at 8192
    // tokens); the caller asks for the head next.
    static KeptStages stages_to_keep(const Settings& settings, int64_t tokens, int64_t tokens2, int detail_head,
                                     bool overview_first);
    static constexpr double kKeepEverythingBytes = 512.0 * (1 << 20);
    static constexpr double kKeepOverviewBytes = 1536.0 * (1 << 20);
    // The head strip draws a head at most 200 pixels a side at 1x, 600 at a presenter's 3x:
    // about a texel a pixel.
    static constexpr int kPreviewTexels = 512;

private:
    std::shared_ptr<Run> start_chapter(const Request& r);
    std::shared_ptr<Run> start_model(const Request& r);
    void load(const Settings& s);
    // The run `s` asks for from the last model run, when one can give it without a full
    // run: another picked position, tokens appended or generated from its cache.
    std::optional<ModelRun> reuse_last(const Request& r, const Settings& s, const std::optional<Tokenized>& tokens) const;
    std::shared_ptr<Run> keep(ModelRun run, const Settings& s);  // the last model run now

    bool chapter_in_steps_;
    // The chapter 3 module's texts' embedding, and the settings it was made for.
    std::optional<Settings> embedded_for_;
    Embedded embedded_;
    // The model of the last model run, and that run with the settings it was made for.
    std::optional<LoadedModel> model_;
    std::shared_ptr<const ModelRun> last_model_run_;
    std::optional<Settings> last_model_settings_;
    // The run in steps, and its settings (a model's layer and head clamped to its shape).
    std::optional<ModelRunSteps> model_steps_;
    std::optional<AttendSteps> attend_;
    Settings stepping_settings_;
};

// The Run a front end shows for `s`: the chapter 3 module's (pipeline.h's compute), or
// with s.model the model's layer s.layer (0 when unset) with head s.head's every stage,
// its generated tokens in view (a session's run as given). What lessons are checked against.
Run compute_view(const Settings& s);
// The same for s.model already loaded as `model` (lessons load the shipped model once).
Run compute_view(const Settings& s, const LoadedModel& model);

}  // namespace attn
