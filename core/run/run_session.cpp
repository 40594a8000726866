#include "run/run_session.h"

#include <algorithm>

#include "attention/variants.h"  // variant_name
#include "base/user_error.h"
#include "run/switched_off.h"     // changes_heads

namespace attn {

KeptStages RunSession::stages_to_keep(const Settings& settings, int64_t tokens, int64_t tokens2, int detail_head,
                                      bool overview_first) {
    const auto bytes = [&](const KeptStages& keep) { return estimate_work(settings, tokens, tokens2, keep).bytes; };
    if (bytes(KeptStages{}) <= kKeepEverythingBytes) return KeptStages{};
    const KeptStages overview = KeptStages::overview_and(detail_head);
    if (bytes(overview) <= kKeepOverviewBytes) return overview;
    return KeptStages::previews_and(overview_first ? -1 : detail_head, kPreviewTexels);
}

std::shared_ptr<Run> RunSession::start(const Request& r) {
    drop();  // a run in steps not finished: the newest request replaces it
    if (r.base) {  // a dropout change: what follows the weights, on a copy of the run on screen
        if (chapter_in_steps_) {
            attend_.emplace(r.base, r.settings);
            stepping_settings_ = r.settings;
            return nullptr;
        }
        auto run = std::make_shared<Run>(*r.base);
        recompute_dropout(*run, r.settings);
        return run;
    }
    return r.settings.model ? start_model(r) : start_chapter(r);
}

std::shared_ptr<Run> RunSession::start_chapter(const Request& r) {
    const Settings& settings = r.settings;
    if (!embedded_for_ || !same_embedding(*embedded_for_, settings)) {
        embedded_for_.reset();  // a failed embedding leaves no stale one behind
        // Checked against the budget as the smallest run below keeps it, so that a text
        // too long for every stage of every head still opens with the overview.
        embedded_ = embed_texts(settings, budget_for(settings), KeptStages::previews_and(0, kPreviewTexels));
        embedded_for_ = settings;
    }
    const auto tokens = static_cast<int64_t>(embedded_.tokens.ids.size());
    const int64_t tokens2 = embedded_.tokens2 ? static_cast<int64_t>(embedded_.tokens2->ids.size()) : 0;
    const KeptStages keep = stages_to_keep(settings, tokens, tokens2, r.detail_head, r.overview_first);
    if (!chapter_in_steps_) return std::make_shared<Run>(attend(settings, embedded_, keep));
    attend_.emplace(settings, embedded_, budget_for(settings), keep);  // step() computes it, a head a step
    stepping_settings_ = settings;
    return nullptr;
}

bool RunSession::loads_model(const Settings& s) const {
    return s.model && (!model_ || model_->name != *s.model ||
                       (is_seeded_model(*s.model) && model_->seed != s.attention.seed));
}

void RunSession::load(const Settings& s) {
    if (!loads_model(s)) return;
    model_.reset();  // the old model's memory goes before the new one's arrives
    last_model_run_.reset();
    last_model_settings_.reset();
    model_ = load_model(*s.model, s.attention.seed);
}

std::shared_ptr<Run> RunSession::run(const Request& r) {
    std::shared_ptr<Run> run = start(r);
    while (!run) run = step();
    return run;
}

std::shared_ptr<Run> RunSession::start_model(const Request& r) {
    load(r.settings);
    const ModelShape shape = model_shape(*model_);
    Settings s = r.settings;
    if (r.as_shown) {
        s.layer = std::clamp(r.settings.layer.value_or(0), 0, shape.layers - 1);
        s.head = std::clamp(r.detail_head, 0, shape.heads - 1);
    }
    // The change's tokens, once: what the picked position, an append and the run read.
    std::optional<Tokenized> tokens;
    try {
        tokens = model_input_tokens(s, *model_);
    } catch (const UserError&) {  // ids the model lacks, no tokenizer: the full run says so
    }
    // A picked position past the tokens in view (a shorter text typed, the generated tokens
    // removed) shows the last token's, as a layer past the model's shows its last: the
    // controls keep the pick, and it returns once the tokens reach it.
    const size_t in_view = (tokens ? tokens->ids.size() : 0) + static_cast<size_t>(std::max(s.generate, 0));
    if (r.as_shown && s.next_at && static_cast<size_t>(*s.next_at) >= in_view) s.next_at.reset();
    if (std::optional<ModelRun> reused = reuse_last(r, s, tokens)) return keep(std::move(*reused), s);
    // step() runs it, a layer a step.
    model_steps_.emplace(s, *model_, r.budget ? *r.budget : budget_for(s), r.generated_in_view, std::move(tokens));
    stepping_settings_ = s;
    return nullptr;
}

std::optional<ModelRun> RunSession::reuse_last(const Request& r, const Settings& s,
                                                const std::optional<Tokenized>& tokens) const {
    // Heads switched off take a full run: the run on screen and its KV cache have no hook;
    // the lens and the logit's parts read activations a cached step does not keep.
    if (s.ablate || s.patch || s.logit_lens || s.attribute || s.head_effects || !r.as_shown || !last_model_run_ ||
        changes_heads(*last_model_run_))
        return std::nullopt;
    const ModelRun& last = *last_model_run_;
    const Settings& was = *last_model_settings_;
    // Other sampling settings choose other tokens, from the first generated one on.
    if (s.sampling != last.sampler.how()) return std::nullopt;
    const bool same_text = s.text == was.text && s.ids == was.ids;
    // Another position picked on the run on screen: its logits have every row already.
    if (same_text && s.generate == was.generate && last.layer == s.layer && last.head == s.head)
        if (std::optional<ModelRun> picked = with_next_at(last, s.next_at)) return picked;
    if (!r.overview_first || last.layer != s.layer) return std::nullopt;
    if (same_text && s.generate > was.generate) {
        // More generated tokens, one cached step each, the sampler's random stream carried
        // from run to run: the tokens a run generating them all at once has. A picked
        // position keeps its next tokens (later tokens leave them be).
        std::optional<ModelRun> more = extend_generated(last, s.next_at);
        for (int n = was.generate + 1; more && n < s.generate; ++n) more = extend_generated(*more, s.next_at);
        return more;
    }
    // A text typed or edited after its first tokens: the rows before the edit are the
    // last run's, each token after it one cached step.
    if (s.generate == 0 && was.generate == 0 && tokens) return extend_model_run(last, *tokens, s.next_at);
    return std::nullopt;
}

std::shared_ptr<Run> RunSession::keep(ModelRun run, const Settings& s) {
    last_model_run_ = std::make_shared<const ModelRun>(std::move(run));
    last_model_settings_ = s;
    return std::make_shared<Run>(layer_view(last_model_run_));
}

std::shared_ptr<Run> RunSession::step() {
    if (attend_) {
        attend_->step();
        if (!attend_->done()) return nullptr;
        auto run = std::make_shared<Run>(attend_->take());
        attend_.reset();
        return run;
    }
    if (!model_steps_) return nullptr;
    model_steps_->step();
    if (!model_steps_->done()) return nullptr;
    ModelRun run = model_steps_->take();
    model_steps_.reset();
    return keep(std::move(run), stepping_settings_);
}

std::string RunSession::next_step() const {
    if (attend_) return variant_name(stepping_settings_.attention.variant) + ": " + attend_->next_step();
    if (model_steps_) return *stepping_settings_.model + ": " + model_steps_->next_step();
    return "";
}

int RunSession::steps_done() const {
    return attend_ ? attend_->steps_done() : model_steps_ ? model_steps_->steps_done() : 0;
}

Run compute_view(const Settings& s) {
    if (!s.model) return compute(s);
    return compute_view(s, load_model(*s.model, s.attention.seed));
}

Run compute_view(const Settings& s, const LoadedModel& model) {
    RunSession session(false, model);
    RunSession::Request r;
    r.settings = s;
    r.settings.layer = s.layer.value_or(0);
    r.settings.head = s.head.value_or(0);
    r.as_shown = false;  // a layer or head the model lacks is the lesson's mistake: refused
    return *session.run(r);
}

int RunSession::steps() const { return attend_ ? attend_->steps() : model_steps_ ? model_steps_->steps() : 0; }

}  // namespace attn
