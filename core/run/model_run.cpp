#include "run/model_run.h"

#include <algorithm>

#include "run/switched_off.h"
#include "run/pipeline.h"
#include "run/run_cache_size.h"
#include "run/run_attribution.h"
#include "run/run_lens.h"
#include "run/run_head_effects.h"

namespace attn {

namespace {

constexpr int kNextTokens = 10;  // the most probable next tokens a run lists

}  // namespace

std::vector<TokenProbability> next_tokens_of(const RowVector& logits, const Sampling& how) {
    std::vector<TokenProbability> top = top_next_tokens(logits, kNextTokens);
    if (how.sampled()) {
        const RowVector drawn = draw_distribution(logits, how);
        for (TokenProbability& t : top) t.drawn = drawn(static_cast<Eigen::Index>(t.id));
    }
    return top;
}

void score_heads(ModelRun& run, const ModelRun* previous, size_t kept) {
    const auto T = static_cast<Eigen::Index>(run.tokens.ids.size());
    Matrix uniform = Matrix::Zero(T, T);
    for (Eigen::Index i = 0; i < T; ++i) uniform.row(i).head(i + 1).setConstant(1.0f / static_cast<float>(i + 1));
    run.chance_scores = head_scores(uniform, run.tokens.ids);
    const auto* before = previous && kept > 0 ? previous->head_masses.get() : nullptr;
    auto masses = std::make_shared<std::vector<std::vector<std::vector<HeadMasses>>>>();
    run.head_scores.clear();
    for (size_t l = 0; l < run.trace->blocks.size(); ++l) {
        run.head_scores.emplace_back();
        masses->emplace_back();
        const std::vector<HeadTrace>& heads = run.trace->blocks[l].attention.heads;
        for (size_t h = 0; h < heads.size(); ++h) {
            const std::vector<HeadMasses>* was = before ? &before->at(l).at(h) : nullptr;
            masses->back().push_back(head_mass_prefixes(
                heads[h].at("weights"), run.tokens.ids,
                was ? std::vector<HeadMasses>(was->begin(), was->begin() + static_cast<std::ptrdiff_t>(kept) + 1)
                    : std::vector<HeadMasses>{}));
            run.head_scores.back().push_back(scores_of(masses->back().back().back()));
        }
    }
    run.head_masses = std::move(masses);
}


std::string layer_head_file(int layer, int head) {
    return "layer" + std::to_string(layer) + "_head" + std::to_string(head);
}

ModelRun run_model(const Settings& s, const LoadedModel& model, const Budget& budget, bool generated_in_view) {
    ModelRunSteps steps(s, model, budget, generated_in_view);
    while (!steps.done()) steps.step();
    return steps.take();
}

ModelRunSteps::ModelRunSteps(const Settings& s, const LoadedModel& model, const Budget& budget, bool generated_in_view,
                             std::optional<Tokenized> tokens)
    : s_(s), generated_in_view_(generated_in_view) {
    const LanguageModel& m = *model.model;
    const ModelShape shape = m.shape();
    const FamilyNames& names = m.names();
    ModelRun& run = run_;
    run.model = model;
    run.tokens = tokens ? std::move(*tokens) : model_input_tokens(s, model);
    const auto text_tokens = static_cast<int64_t>(run.tokens.ids.size());
    const int64_t T = text_tokens + (generated_in_view ? s.generate : 0);
    const std::string generated = generated_in_view && s.generate ? " and " + std::to_string(s.generate) + " generated" : "";
    if (text_tokens == 0) throw InputError("the text has no tokens");
    if (T > shape.context_length)
        throw InputError("the text has " + std::to_string(text_tokens) + " " + names.tokens + generated +
                         "; the model reads at most " + std::to_string(shape.context_length) + " (its " +
                         names.context_setting + ")");
    if (!generated_in_view && s.generate > 0 && !m.generation_slides() && T + s.generate > shape.context_length)
        throw InputError(std::to_string(T) + " " + names.tokens + " and " + std::to_string(s.generate) +
                         " generated are more than the model's " + names.context_setting + " (" +
                         std::to_string(shape.context_length) + ")");
    for (const int64_t id : run.tokens.ids)
        if (id >= shape.vocab_size)
            throw InputError("the text has token " + std::to_string(id) + ", outside the model's vocabulary of " +
                             std::to_string(shape.vocab_size));
    pick_detail_head(s, shape, run);
    run.switched_off = switched_off_heads(s, shape);
    read_patch(s, model, run);
    attribute_ = attribute_ids(s, shape);
    if (s.sampling.top_k && *s.sampling.top_k > shape.vocab_size)
        throw InputError("--top-k " + std::to_string(*s.sampling.top_k) + ": the model's vocabulary has " +
                         std::to_string(shape.vocab_size) + " tokens");
    // Checked before the forward: its logits have a row for every position in view.
    const int64_t position = position_ = s.next_at ? *s.next_at : T - 1;
    if (position < 0 || position >= T)
        throw InputError("--next-at " + std::to_string(position) + ": the text has " + std::to_string(T) + " " +
                         (generated_in_view && s.generate ? "tokens with its generated ones" : names.tokens) +
                         " (positions 0.." + std::to_string(T - 1) + ")");
    metric_ = head_effects_metric(s, shape, position);
    WorkEstimate work = m.run_work(T, s.generate, s.layer.has_value());
    if (metric_) work.seconds += work.forward_seconds * head_effects_forwards(shape);
    check_budget(work, budget);
    run.sampler = TokenSampler(s.sampling);  // torch.manual_seed(seed) before generate
    if (generated_in_view && s.generate > 0) {  // the generated ids, as generate appends them
        run.generated = m.generate(run.tokens.ids, s.generate, run.sampler);
        for (const int64_t id : run.generated) run.tokens = with_token(model, std::move(run.tokens), id);
    }

    // Keys and values are T x head_dim a head: kept everywhere, they are the cache.
    std::vector<KeptStages> keep(static_cast<size_t>(shape.layers), KeptStages::only(m.cache_stages()));
    if (run.layer >= 0) keep[static_cast<size_t>(run.layer)] = KeptStages::only(m.cache_stages(), run.head);
    // The logits of the positions whose next tokens are shown (the last; --next-at's) and
    // generation starts from (the last): not all T x vocab, GPT-2 small's largest product.
    std::vector<Eigen::Index> logit_rows{static_cast<Eigen::Index>(position)};
    if (position != T - 1) logit_rows.push_back(static_cast<Eigen::Index>(T - 1));
    forward_ = m.traced_forward(run.tokens.ids, std::move(keep), std::move(logit_rows), run_z_hook(run, shape.head_dim));
    extra_steps_ = (s.logit_lens ? shape.layers + 1 : 0) + (attribute_.empty() ? 0 : 1) + (metric_ ? 1 + shape.layers : 0);
}

std::string ModelRunSteps::next_step() const {
    if (!forward_->done()) return forward_->next_step();
    if (!summed_) return "the next tokens";
    const int blocks = model_shape(run_.model).layers;
    if (run_.lens.size() < lens_entries(run_) && s_.logit_lens)
        return "the logit lens, " + std::to_string(run_.lens.size() + 1) + " of " + std::to_string(lens_entries(run_));
    if (!attribute_.empty() && !run_.attribution) return "the logit's parts";
    if (!effects_) return "the run the heads' effects start from";
    return "the heads' effects, layer " + std::to_string(run_.head_effects.size() + 1) + " of " + std::to_string(blocks);
}

void ModelRunSteps::step() {
    if (finished_) return;
    if (!forward_->done()) return forward_->step();
    if (summed_) {
        if (s_.logit_lens && run_.lens.size() < lens_entries(run_)) read_next_lens_entry(run_);
        else if (!attribute_.empty() && !run_.attribution) attribute_run(run_, attribute_);
        else if (!effects_) effects_ = std::make_shared<HeadEffectsWork>(start_head_effects(run_, s_, *metric_));
        else head_effects_step(run_, *effects_);
        finished_ = ++extras_done_ == extra_steps_;
        return;
    }
    const LanguageModel& m = *run_.model.model;
    ModelRun& run = run_;
    const Settings& s = s_;
    const auto T = static_cast<Eigen::Index>(run.tokens.ids.size());
    ModelTrace trace = forward_->take();
    run.cache = m.cache_from(trace);
    run.trace = std::make_shared<const ModelTrace>(std::move(trace));
    run.next_position = position_;
    run.next_tokens = next_tokens_of(m.logits_at(*run.trace, position_), s.sampling);
    if (changes_heads(run)) run.baseline_next_tokens = baseline_next_tokens(run, position_, s.sampling);
    score_heads(run);
    if (s.generate > 0 && !generated_in_view_)  // from this run's cache: the prompt is not run again
        run.generated = m.generate_after(*run.cache, m.logits_at(*run.trace, T - 1), s.generate, run.sampler);
    summed_ = true;
    finished_ = extra_steps_ == 0;
}

namespace {

// A trace of T tokens whose every head's weights are `before`'s first `kept_rows` rows
// and columns in the top left corner: the rows the new tokens' cached steps fill, the new
// columns of earlier rows masked (0).
ModelTrace padded_weights(const ModelTrace& before, const std::vector<int64_t>& ids, Eigen::Index kept_rows,
                        const std::vector<std::string>& kept) {
    const auto T = static_cast<Eigen::Index>(ids.size());
    ModelTrace trace;
    trace.ids = ids;
    trace.blocks.resize(before.blocks.size());
    for (size_t l = 0; l < before.blocks.size(); ++l) {
        Trace& att = trace.blocks[l].attention;
        const Trace& was = before.blocks[l].attention;
        att.variant = was.variant;
        att.causal = true;
        att.head_groups = was.head_groups;  // a Llama's query heads' key/value heads
        att.kept = KeptStages::only(kept);
        att.heads.resize(was.heads.size());
        for (size_t h = 0; h < was.heads.size(); ++h) {
            const Matrix& w = was.heads[h].at("weights");
            // Written once, row by row (4 MB a head at T = 1024): a kept row's keys up to
            // its own (the rest are masked, 0), the new rows 0 until their steps fill them.
            Matrix weights(T, T);
            for (Eigen::Index i = 0; i < T; ++i) {
                const Eigen::Index copied = i < kept_rows ? i + 1 : 0;
                if (copied > 0) weights.row(i).head(copied) = w.row(i).head(copied);  // w has kept_rows rows or more
                weights.row(i).tail(T - copied).setZero();
            }
            att.heads[h].add("weights", std::move(weights), Axis::Tokens);
        }
    }
    return trace;
}

}  // namespace

size_t most_cached_steps(size_t tokens) { return std::max<size_t>(8, tokens / 32); }

std::optional<ModelRun> extend_model_run(const ModelRun& previous, const Tokenized& tokens,
                                         std::optional<int> next_at) {
    const ModelShape shape = model_shape(previous.model);
    const std::vector<int64_t>& old_ids = previous.tokens.ids;
    const std::vector<int64_t>& ids = tokens.ids;
    if (!previous.trace || ids.empty() || ids == old_ids || static_cast<int64_t>(ids.size()) > shape.context_length ||
        changes_heads(previous))  // heads changed: the KV cache's steps have no hook (a full run has)
        return std::nullopt;
    // The tokens both begin with keep previous's rows: under the causal mask a position's
    // keys, values and weights do not depend on the tokens after it.
    const auto kept = static_cast<size_t>(std::mismatch(old_ids.begin(), old_ids.end(), ids.begin(), ids.end()).first -
                                          old_ids.begin());
    if (kept == 0 || ids.size() - kept > most_cached_steps(ids.size())) return std::nullopt;  // a full run is cheaper
    for (size_t i = kept; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= shape.vocab_size) return std::nullopt;  // the full run words the refusal
    const auto T0 = static_cast<Eigen::Index>(kept), T = static_cast<Eigen::Index>(ids.size());
    const Eigen::Index position = next_at ? *next_at : T - 1;
    if (position < 0 || position >= T) return std::nullopt;  // the full run words the refusal
    // A text cut short (no new token): its last row's logits are previous's, which an
    // extended run keeps for its own last row only.
    if (T == T0 && previous.extended) return std::nullopt;
    if (!previous.cache) return std::nullopt;
    std::unique_ptr<KeyValueCache> cache = previous.cache->copy();  // previous stays on screen
    if (kept < old_ids.size()) cache->truncate(kept);
    ModelRun run;
    run.next_position = position;
    // Before the new tokens: the causal mask keeps their logits out of that row, so
    // previous's next tokens there are the new text's.
    if (position < T0) {
        if (previous.next_position == position) run.next_tokens = previous.next_tokens;
        else if (!previous.extended)  // a full run: that row's logits, from its final norm
            run.next_tokens = next_tokens_of(run_logits_at(previous, position), previous.sampler.how());
        else return std::nullopt;  // an extended run keeps its last row's logits only
    }
    run.model = previous.model;
    run.tokens = tokens;
    run.layer = previous.layer;
    run.head = -1;  // no head has every stage yet
    run.extended = true;
    ModelTrace trace = padded_weights(*previous.trace, ids, T0, run.model.model->cache_stages());
    TokenStep step;
    for (Eigen::Index i = T0; i < T; ++i) {
        step = cache->append(ids[static_cast<size_t>(i)]);
        if (i == position) run.next_tokens = next_tokens_of(step.logits, previous.sampler.how());
        for (size_t l = 0; l < step.weights.size(); ++l)
            for (size_t h = 0; h < step.weights[l].size(); ++h)  // every query head's
                trace.blocks[l].attention.heads[h].stages[0].value.row(i).head(i + 1) = step.weights[l][h];  // 1 x (i+1)
    }
    // Each head's keys and values, T x head_dim, from the cache (the head lines read them).
    for (size_t l = 0; l < trace.blocks.size(); ++l)
        for (size_t h = 0; h < trace.blocks[l].attention.heads.size(); ++h)
            cache->add_keys_values(l, h, trace.blocks[l].attention.heads[h]);
    trace.logits = T > T0 ? step.logits : run_logits_at(previous, T - 1);  // the last position's only
    trace.logit_rows = {T - 1};
    run.trace = std::make_shared<const ModelTrace>(std::move(trace));
    run.cache = std::move(cache);
    run.sampler = previous.sampler;
    score_heads(run, &previous, kept);
    return run;
}

std::optional<ModelRun> extend_generated(const ModelRun& previous, std::optional<int> next_at) {
    if (!previous.trace || changes_heads(previous)) return std::nullopt;
    TokenSampler sampler = previous.sampler;  // previous keeps its own stream: it stays on screen
    // The last position's logits: every run computes them (a full run's last row, an
    // extended run's only row).
    const auto last = static_cast<Eigen::Index>(previous.tokens.ids.size()) - 1;
    const int64_t id = sampler.next(run_logits_at(previous, last));
    std::optional<ModelRun> run = extend_model_run(previous, with_token(previous.model, previous.tokens, id), next_at);
    if (!run) return std::nullopt;
    run->sampler = std::move(sampler);
    run->generated = previous.generated;
    run->generated.push_back(id);
    return run;
}

std::optional<ModelRun> with_next_at(const ModelRun& previous, std::optional<int> next_at) {
    if (!previous.trace || changes_heads(previous)) return std::nullopt;  // baseline_next_tokens are one position's
    const auto T = static_cast<Eigen::Index>(previous.trace->ids.size());
    const Eigen::Index position = next_at ? *next_at : T - 1;
    if (previous.extended || T != static_cast<Eigen::Index>(previous.tokens.ids.size()) || position < 0 || position >= T)
        return std::nullopt;
    ModelRun run = previous;
    run.next_position = position;
    // One row of the output head when the forward did not compute it (1 x d x vocab).
    run.next_tokens = next_tokens_of(run_logits_at(run, position), previous.sampler.how());
    return run;
}

void pick_detail_head(const Settings& s, const ModelShape& shape, ModelRun& run) {
    if (s.layer.has_value() != s.head.has_value()) throw InputError("--layer and --head go together (L.H, 0-based)");
    if (!s.layer) return;
    if (*s.layer < 0 || *s.layer >= shape.layers)
        throw InputError("--layer " + std::to_string(*s.layer) + ": the model has " + std::to_string(shape.layers) +
                         " layers (0.." + std::to_string(shape.layers - 1) + ")");
    if (*s.head < 0 || *s.head >= shape.heads)
        throw InputError("--head " + std::to_string(*s.head) + ": the model has " + std::to_string(shape.heads) +
                         " heads a layer (0.." + std::to_string(shape.heads - 1) + ")");
    run.layer = *s.layer;
    run.head = *s.head;
}

RowVector run_logits_at(const ModelRun& run, Eigen::Index position) {
    return run.model.model->logits_at(*run.trace, position);
}

Run layer_view(std::shared_ptr<const ModelRun> run) {
    Run view;
    view.tokens = run->tokens;
    view.embedding = "model";
    view.vocab_size = model_shape(run->model).vocab_size;
    view.trace = run->trace->blocks[static_cast<size_t>(std::max(run->layer, 0))].attention;
    view.model = std::move(run);
    return view;
}

}  // namespace attn
