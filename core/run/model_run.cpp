#include "run/model_run.h"

#include <algorithm>

#include "run/llama_model_run.h"
#include "run/llama_run.h"
#include "run/switched_off.h"
#include "run/pipeline.h"
#include "run/run_cache.h"
#include "run/run_attribution.h"
#include "run/run_lens.h"
#include "run/run_head_effects.h"
#include "model/kv_cache.h"
#include "numerics/gemm.h"
#include "text/gpt2_tokenizer.h"

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

WorkEstimate estimate_model_work(const GptConfig& cfg, int64_t tokens, int generate, bool detail) {
    const double T = static_cast<double>(tokens), d = cfg.emb_dim, L = cfg.n_layers, H = cfg.n_heads;
    const double V = cfg.vocab_size, S = T * T;
    WorkEstimate w;
    // Kept: every head's weights, each block's seven T x d activations and its T x 4d
    // hidden layer, the logits; the detail layer's heads keep every stage (about ten
    // T x T matrices and their projections). Temporaries: one layer's scores per head.
    const double weights = L * H * S;
    const double detail_numbers = detail ? H * (10 * S + 6 * T * d / H + 3 * d * d / H) : 0;
    // The logits: the last position's and --next-at's (run_model computes no others).
    const double floats = weights + L * (11 * T * d) + 2 * V + detail_numbers + 2 * H * S;
    w.bytes = 4 * floats;
    const double params = V * d + L * 12 * d * d, block_params = L * 12 * d * d;
    const double flops = 2 * T * block_params + 2 * 2 * V * d + L * 4 * S * d +
                         2 * generate * (params + L * 2 * (T + generate) * d);
    w.forward_seconds = flops / kEstimatedFlopsPerSecond;
    w.seconds = w.forward_seconds;
    w.stage_numbers = {{"weights", weights}};
    if (detail) w.stage_numbers.push_back({"detail", detail_numbers});
    w.lower = "the text length (" + std::to_string(tokens) + " tokens)";
    return w;
}

ModelRun run_model(const Settings& s, const LoadedModel& model, const Budget& budget, bool generated_in_view) {
    ModelRunSteps steps(s, model, budget, generated_in_view);
    while (!steps.done()) steps.step();
    return steps.take();
}

ModelRunSteps::ModelRunSteps(const Settings& s, const LoadedModel& model, const Budget& budget, bool generated_in_view)
    : s_(s), generated_in_view_(generated_in_view) {
    if (model.llama) {  // one step: the Llama forward is not split into steps
        const std::vector<int64_t> attribute = attribute_ids(s, model_shape(model));
        if (s.head_effects) {  // their metric and reruns checked before anything runs, as a GPT run's
            const auto T = static_cast<int64_t>(model_input_tokens(s, model).ids.size()) + (generated_in_view ? s.generate : 0);
            head_effects_metric(s, model_shape(model), s.next_at ? *s.next_at : T - 1);
            WorkEstimate work = estimate_llama_work(model.llama->config(), T);
            work.seconds += work.forward_seconds * head_effects_forwards(model_shape(model));
            check_budget(work, budget);
        }
        run_ = run_llama_model(s, model, budget, generated_in_view);
        if (s.logit_lens) read_run_lens(run_);
        attribute_run(run_, attribute);
        if (const auto metric = head_effects_metric(s, model_shape(model), run_.next_position)) {
            const HeadEffectsWork work = start_head_effects(run_, s, *metric);
            while (!head_effects_step(run_, work)) {
            }
        }
        finished_ = true;
        return;
    }
    const GptModel& m = *model.model;
    const GptConfig& cfg = m.cfg;
    ModelRun& run = run_;
    run.model = model;
    run.tokens = model_input_tokens(s, model);
    const auto T = static_cast<int64_t>(run.tokens.ids.size()) + (generated_in_view ? s.generate : 0);
    if (T == 0) throw InputError("the text has no tokens");
    if (T > cfg.context_length)
        throw InputError("the text has " + std::to_string(run.tokens.ids.size()) + " GPT-2 tokens" +
                         (generated_in_view && s.generate ? " and " + std::to_string(s.generate) + " generated" : "") +
                         "; the model reads at most " + std::to_string(cfg.context_length) + " (its context length)");
    if (cfg.vocab_size < Gpt2Tokenizer::kVocabSize)
        for (const int64_t id : run.tokens.ids)
            if (id >= cfg.vocab_size)
                throw InputError("the text has GPT-2 token " + std::to_string(id) + ", outside the model's vocabulary of " +
                                 std::to_string(cfg.vocab_size));
    pick_detail_head(s, model_shape(model), run);
    run.switched_off = switched_off_heads(s, model_shape(model));
    read_patch(s, model, run);
    attribute_ = attribute_ids(s, model_shape(model));
    if (s.sampling.top_k && *s.sampling.top_k > cfg.vocab_size)
        throw InputError("--top-k " + std::to_string(*s.sampling.top_k) + ": the model's vocabulary has " +
                         std::to_string(cfg.vocab_size) + " tokens");
    // Checked before the forward: its logits have a row for every position in view.
    const int64_t position = position_ = s.next_at ? *s.next_at : T - 1;
    if (position < 0 || position >= T)
        throw InputError("--next-at " + std::to_string(position) + ": the text has " + std::to_string(T) +
                         (generated_in_view && s.generate ? " tokens with its generated ones" : " GPT-2 tokens") +
                         " (positions 0.." + std::to_string(T - 1) + ")");
    metric_ = head_effects_metric(s, model_shape(model), position);
    WorkEstimate work = estimate_model_work(cfg, T, s.generate, s.layer.has_value());
    if (metric_) work.seconds += work.forward_seconds * head_effects_forwards(model_shape(model));
    check_budget(work, budget);
    run.sampler = TokenSampler(s.sampling);  // torch.manual_seed(seed) before generate
    if (generated_in_view && s.generate > 0) {  // the generated ids, as generate appends them
        const std::vector<int64_t> all = generate_cached(m, run.tokens.ids, s.generate, run.sampler);
        run.generated.assign(all.begin() + static_cast<std::ptrdiff_t>(run.tokens.ids.size()), all.end());
        for (const int64_t id : run.generated) run.tokens = with_token(model, std::move(run.tokens), id);
    }

    // Keys and values are T x head_dim a head: kept everywhere, they are the cache.
    std::vector<KeptStages> keep(m.blocks.size(), KeptStages::only(model_run_stages(model)));
    if (run.layer >= 0) keep[static_cast<size_t>(run.layer)] = KeptStages::only(model_run_stages(model), run.head);
    // The logits of the positions whose next tokens are shown (the last; --next-at's) and
    // generation starts from (the last): not all T x vocab, GPT-2 small's largest product.
    std::vector<Eigen::Index> logit_rows{static_cast<Eigen::Index>(position)};
    if (position != T - 1) logit_rows.push_back(static_cast<Eigen::Index>(T - 1));
    forward_.emplace(m, run.tokens.ids, std::move(keep), GptForward::kLogitProducts, std::move(logit_rows));
    forward_->hook_z(run_z_hook(run, model_shape(model).head_dim));
    extra_steps_ = (s.logit_lens ? static_cast<int>(m.blocks.size()) + 1 : 0) + (attribute_.empty() ? 0 : 1) +
                   (metric_ ? 1 + static_cast<int>(m.blocks.size()) : 0);
}

std::string ModelRunSteps::next_step() const {
    if (!forward_) return "the forward";  // a Llama-family run: one step, done when made
    const int blocks = static_cast<int>(run_.model.model->blocks.size()), done = steps_done();
    if (done < blocks) return "layer " + std::to_string(done + 1) + " of " + std::to_string(blocks);
    const int parts = forward_->steps() - blocks;
    if (done < forward_->steps())
        return parts == 1 ? "the logits" : "the logits, part " + std::to_string(done - blocks + 1) + " of " + std::to_string(parts);
    if (!summed_) return "the next tokens";
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
    const GptModel& m = *run_.model.model;
    ModelRun& run = run_;
    const Settings& s = s_;
    const auto T = static_cast<int64_t>(run.tokens.ids.size());
    GptTrace trace = forward_->take();
    run.cache = std::make_shared<const GptCache>(cache_from_trace(m, trace));
    run.trace = std::make_shared<const GptTrace>(std::move(trace));
    run.next_position = position_;
    run.next_tokens = next_tokens_of(logits_at(m, *run.trace, position_), s.sampling);
    if (changes_heads(run)) run.baseline_next_tokens = baseline_next_tokens(run, position_, s.sampling);
    score_heads(run);
    if (s.generate > 0 && !generated_in_view_) {  // from this run's cache: the prompt is not run again
        const std::vector<int64_t> all =
            generate_from_cache(m, *run.cache, logits_at(m, *run.trace, T - 1), s.generate, run.sampler);
        run.generated.assign(all.begin() + T, all.end());
    }
    summed_ = true;
    finished_ = extra_steps_ == 0;
}

namespace {

// A trace of T tokens whose every head's weights are `before`'s first `kept_rows` rows
// and columns in the top left corner: the rows the new tokens' cached steps fill, the new
// columns of earlier rows masked (0).
GptTrace padded_weights(const GptTrace& before, const std::vector<int64_t>& ids, Eigen::Index kept_rows,
                        const std::vector<std::string>& kept) {
    const auto T = static_cast<Eigen::Index>(ids.size());
    GptTrace trace;
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
    std::unique_ptr<GrowingCache> cache = growing_cache(previous);  // a copy: previous stays on screen
    if (!cache) return std::nullopt;
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
    GptTrace trace = padded_weights(*previous.trace, ids, T0, model_run_stages(run.model));
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
    run.trace = std::make_shared<const GptTrace>(std::move(trace));
    cache->store(run);
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
    if (!run.model.llama) return logits_at(*run.model.model, *run.trace, position);
    const std::vector<Eigen::Index>& rows = run.trace->logit_rows;
    const auto it = std::find(rows.begin(), rows.end(), position);
    if (it != rows.end()) return run.trace->logits.row(it - rows.begin());
    return run.model.llama->logits(run.trace->final_normed.row(position));
}

Run compute_view(const Settings& s) {
    if (!s.model) return compute(s);
    return compute_view(s, load_model(*s.model, s.attention.seed));
}

Run compute_view(const Settings& s, const LoadedModel& model) {
    Settings with_head = s;
    with_head.layer = s.layer.value_or(0);
    with_head.head = s.head.value_or(0);
    return layer_view(std::make_shared<const ModelRun>(run_model(with_head, model, budget_for(s), true)));
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
