#include "state/worker.h"

#include <algorithm>
#include <new>

#include "run/model_run.h"
#include "run/switched_off.h"
#include "text/gpt2_tokenizer.h"
#include "numerics/memory.h"

namespace app {

attn::KeptStages Worker::stages_to_keep(const attn::Settings& settings, int64_t tokens, int64_t tokens2,
                                        int detail_head, bool overview_first) {
    const auto bytes = [&](const attn::KeptStages& keep) {
        return attn::estimate_work(settings, tokens, tokens2, keep).bytes;
    };
    if (bytes(attn::KeptStages{}) <= kKeepEverythingBytes) return attn::KeptStages{};
    const attn::KeptStages overview = attn::KeptStages::overview_and(detail_head);
    if (bytes(overview) <= kKeepOverviewBytes) return overview;
    return attn::KeptStages::previews_and(overview_first ? -1 : detail_head, kPreviewTexels);
}

std::shared_ptr<attn::Run> Worker::compute(const attn::Settings& settings, int detail_head, bool overview_first) {
    if (!embedded_for_ || !attn::same_embedding(*embedded_for_, settings)) {
        embedded_for_.reset();  // a failed embedding leaves no stale cache behind
        // Checked against the budget as the smallest run below keeps it, so that a text
        // too long for every stage of every head still opens with the overview.
        embedded_ = attn::embed_texts(settings, attn::budget_for(settings),
                                      attn::KeptStages::previews_and(0, kPreviewTexels));
        embedded_for_ = settings;
    }
    const int64_t tokens = static_cast<int64_t>(embedded_.tokens.ids.size());
    const int64_t tokens2 = embedded_.tokens2 ? static_cast<int64_t>(embedded_.tokens2->ids.size()) : 0;
    const attn::KeptStages keep = stages_to_keep(settings, tokens, tokens2, detail_head, overview_first);
    if (!kChapterRunsInSteps) return std::make_shared<attn::Run>(attn::attend(settings, embedded_, keep));
    stepping_.emplace();  // step_job computes it, a head a step
    stepping_->settings = settings;
    stepping_->attend.emplace(settings, embedded_, attn::budget_for(settings), keep);
    return nullptr;
}

std::shared_ptr<attn::Run> Worker::compute_model(const attn::Settings& settings, int detail_head, bool append_only) {
    const std::string& name = *settings.model;
    const bool seeded = attn::is_seeded_model(name);
    if (!model_ || model_->name != name || (seeded && model_->seed != settings.attention.seed)) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            activity_ = "loading " + name + "…";
        }
        model_.reset();  // the old model's memory goes before the new one's arrives
        last_model_run_.reset();
        model_ = attn::load_model(name, settings.attention.seed);
        std::lock_guard<std::mutex> lock(mutex_);
        activity_ = "computing…";
    }
    const attn::ModelShape shape = attn::model_shape(*model_);
    attn::Settings s = settings;
    s.layer = std::clamp(settings.layer.value_or(0), 0, shape.layers - 1);
    s.head = std::clamp(detail_head, 0, shape.heads - 1);
    // A picked position past the tokens in view (a shorter text typed, the generated tokens
    // removed) shows the last token's, as a layer past the model's shows its last: the
    // controls keep the pick, and it returns once the tokens reach it.
    if (s.next_at && static_cast<size_t>(*s.next_at) >= text_tokens(s) + static_cast<size_t>(std::max(s.generate, 0)))
        s.next_at.reset();
    std::shared_ptr<const attn::ModelRun> run;
    // Heads switched off take a full run: the run on screen and its KV cache have no hook;
    // the lens and the logit's parts read activations a cached step does not keep.
    const bool reuse = !s.ablate && !s.patch && !s.logit_lens && !s.attribute && !s.head_effects && last_model_run_ &&
                       !attn::changes_heads(*last_model_run_);
    // Another position picked on the run on screen: its logits have every row already.
    if (reuse && s.text == last_text_ && s.ids == last_ids_ && s.generate == last_generate_ &&
        s.sampling == last_model_run_->sampler.how() && last_model_run_->layer == s.layer &&
        last_model_run_->head == s.head)
        if (std::optional<attn::ModelRun> picked = attn::with_next_at(*last_model_run_, s.next_at))
            run = std::make_shared<const attn::ModelRun>(std::move(*picked));
    if (!run && append_only && reuse && last_model_run_->layer == s.layer) run = append_to_last(s);
    if (!run) {  // a full run: step_job computes it, a layer a step
        stepping_.emplace();
        stepping_->settings = s;
        stepping_->steps.emplace(s, *model_, attn::budget_for(s), true);
        return nullptr;
    }
    last_model_run_ = run;
    return std::make_shared<attn::Run>(attn::layer_view(run));
}

size_t Worker::text_tokens(const attn::Settings& s) const {
    const std::optional<attn::Tokenized> tokens = model_tokens(s);
    return tokens ? tokens->ids.size() : 0;
}

std::optional<attn::Tokenized> Worker::model_tokens(const attn::Settings& s) const {
    try {
        return model_ ? attn::model_input_tokens(s, *model_) : attn::gpt2_tokenizer().encode(s.text);
    } catch (const attn::UserError&) {  // ids the model lacks, no tokenizer: the full run says so
        return std::nullopt;
    }
}

std::shared_ptr<const attn::ModelRun> Worker::append_to_last(const attn::Settings& s) {
    // Other sampling settings choose other tokens, from the first generated one on.
    if (s.sampling != last_model_run_->sampler.how()) return nullptr;
    std::optional<attn::ModelRun> more;
    if (s.text == last_text_ && s.ids == last_ids_ && s.generate > last_generate_) {
        // More generated tokens, one cached step each, the sampler's random stream carried
        // from run to run: the tokens a run generating them all at once has.
        // A picked position keeps its next tokens (previous's: later tokens leave them be).
        more = attn::extend_generated(*last_model_run_, s.next_at);
        for (int n = last_generate_ + 1; more && n < s.generate; ++n) more = attn::extend_generated(*more, s.next_at);
    } else if (s.generate == 0 && last_generate_ == 0) {
        // A text typed or edited after its first tokens, as the model tokenizes it: the rows
        // before the edit are the last run's, each token after it one cached step.
        if (std::optional<attn::Tokenized> tokens = model_tokens(s))
            more = attn::extend_model_run(*last_model_run_, *tokens, s.next_at);
    }
    if (!more) return nullptr;
    last_text_ = s.text;
    last_ids_ = s.ids;
    last_generate_ = s.generate;
    return std::make_shared<const attn::ModelRun>(std::move(*more));
}

std::string Worker::activity() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_ || waiting_ || progress_.total > 0 ? activity_ : "";
}

WorkProgress Worker::progress() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return progress_;
}

void Worker::show_progress() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stepping_) {
        progress_ = WorkProgress{};
        activity_ = "computing…";  // what a request waiting behind the run says
        return;
    }
    if (const std::optional<attn::AttendSteps>& steps = stepping_->attend) {
        progress_ = WorkProgress{steps->steps_done(), steps->steps()};
        activity_ = attn::variant_name(stepping_->settings.attention.variant) + ": " + steps->next_step() + "…";
        return;
    }
    const attn::ModelRunSteps& steps = *stepping_->steps;
    progress_ = WorkProgress{steps.steps_done(), steps.steps()};
    activity_ = *stepping_->settings.model + ": " + steps.next_step() + "…";
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
    const bool ran = guarded(out, [&] {
        if (job.base && kChapterRunsInSteps) {
            stepping_.emplace();  // step_job reruns it, a head a step
            stepping_->settings = job.settings;
            stepping_->attend.emplace(job.base, job.settings);
        } else if (job.base) {
            auto run = std::make_shared<attn::Run>(*job.base);
            attn::recompute_dropout(*run, job.settings);
            out.run = std::move(run);
        } else if (job.settings.model) {
            out.run = compute_model(job.settings, job.detail_head, job.overview_first);
        } else {
            out.run = compute(job.settings, job.detail_head, job.overview_first);
        }
    });
    out.compute_ms = ms_since(start);
    if (!ran || !stepping_ || out.run) {
        stepping_.reset();  // a run in steps whose start failed
        return out;
    }
    stepping_->out = std::move(out);
    show_progress();
    return std::nullopt;
}

std::optional<Outcome> Worker::step_job() {
    Stepping& st = *stepping_;
    const auto start = std::chrono::steady_clock::now();
    const bool ran = guarded(st.out, [&] {
        if (st.attend) {
            st.attend->step();
            if (st.attend->done()) st.out.run = std::make_shared<attn::Run>(st.attend->take());
            return;
        }
        st.steps->step();
        if (!st.steps->done()) return;
        auto run = std::make_shared<const attn::ModelRun>(st.steps->take());
        last_text_ = st.settings.text;
        last_ids_ = st.settings.ids;
        last_generate_ = st.settings.generate;
        last_model_run_ = run;
        st.out.run = std::make_shared<attn::Run>(attn::layer_view(run));
    });
    st.out.compute_ms += ms_since(start);
    if (ran && !st.out.run) {
        show_progress();
        return std::nullopt;
    }
    Outcome out = std::move(st.out);
    stepping_.reset();
    show_progress();
    return out;
}

}  // namespace app
