#pragma once
// One run of a model, of any family (model/language_model.h), on the user's text: what
// the CLI prints with --model and what the app's model view draws. The text is the
// model's tokens (GPT-2's BPE, a Llama-family folder's tokenizer.json); every layer keeps every
// head's attention weights, the chosen layer (--layer L --head H) every stage of that
// head; then the next-token probabilities after the last position or --next-at's and,
// with --generate, the generated tokens (chapter 5's generate: the argmax, or sampled
// with a temperature and top-k), which always continue after the last token.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "run/memory_budget.h"
#include "run/pipeline.h"
#include "interventions/attribution.h"
#include "interventions/head_effects.h"
#include "interventions/hooked_run.h"
#include "interventions/logit_lens.h"
#include "model/head_scores.h"
#include "model/key_value_cache.h"
#include "model/model_source.h"
#include "model/next_token.h"
#include "settings/settings.h"
#include "text/tokenizer.h"

namespace attn {

struct ModelRun {
    LoadedModel model;
    Tokenized tokens;
    // Shared, never changed once made: picking another position's next tokens
    // (with_next_at) copies the rest of the run, not every head's weights. Its logits are
    // the shown positions' only (the last, --next-at's): logits_at computes another's.
    std::shared_ptr<const ModelTrace> trace;
    int layer = -1, head = -1;  // the head with every stage (-1: none)
    std::vector<TokenProbability> next_tokens;  // the 10 most probable after next_position
    int64_t next_position = -1;  // 0-based: Settings::next_at, else the last token
    std::vector<int64_t> generated;             // --generate N: the N new ids
    // How they were chosen (Settings::sampling), and the random stream after them: the
    // next generated token continues it (extend_generated).
    TokenSampler sampler;
    std::vector<std::vector<HeadScores>> head_scores;  // [layer][head], on the text's tokens
    // Their masses row by row, [layer][head][r] for rows [0, r): what an edit after the
    // first k tokens keeps (shared: copies of the run share them).
    std::shared_ptr<const std::vector<std::vector<std::vector<HeadMasses>>>> head_masses;
    // What a head attending uniformly to what it may see scores on the same tokens: on a
    // short text even that puts much weight on the first token (row 0 has nothing else).
    HeadScores chance_scores;
    // The keys and values of every layer: what appending a token reuses (a copy of it
    // grows: model/key_value_cache.h). A Llama-family model's holds its key/value heads',
    // not its query heads'.
    std::shared_ptr<const KeyValueCache> cache;
    bool extended = false;  // made by extend_model_run: every head's weights only
    // Settings::ablate's heads, switched off in this run (its trace, next tokens and head
    // scores are the changed run's), and the next tokens without that.
    std::vector<HeadSite> switched_off;
    // Settings::patch's heads, their z taken from the run of Settings::patch_from (its
    // tokens, as many as the run's) at every position: `patch_source` is that run.
    std::vector<HeadSite> patched;
    std::optional<Tokenized> patch_tokens;
    std::shared_ptr<const ModelActivations> patch_source;
    std::vector<TokenProbability> baseline_next_tokens;  // with every head on, where heads are changed
    // Settings::logit_lens: what the model would say after each block at lens_positions
    // (run_lens.h), [entry][i]: 5 tokens each; empty when not asked.
    std::vector<int64_t> lens_positions;
    LogitLens lens;
    // Settings::attribute: the logit after next_position split into its parts (run_attribution.h).
    std::optional<Attribution> attribution;
    // Settings::head_effects (run_head_effects.h): the metric, its value without any change,
    // whether the heads were patched (else switched off), and [layer][head] each head's
    // change of it, a layer at a time (fewer rows while the run is computing).
    std::optional<EffectMetric> effect_metric;
    double effect_before = 0.0;
    bool effects_patched = false;
    std::vector<std::vector<double>> head_effects;
};


// The most probable next tokens after a row of logits, each with the chance generate draws
// it when `how` samples.
std::vector<TokenProbability> next_tokens_of(const RowVector& logits, const Sampling& how);
// Every head's type scores, and what uniform causal attention scores on the same tokens.
// With `previous` (whose first `kept` tokens and their rows are run's), those rows' masses
// are previous's.
void score_heads(ModelRun& run, const ModelRun* previous = nullptr, size_t kept = 0);
// The logits after `position` of a run's trace: the row its forward computed, else one
// row of the model's output head (either kind of model).
RowVector run_logits_at(const ModelRun& run, Eigen::Index position);

// Checks s.layer and s.head (set together, or neither) against the model's shape and
// makes them run's detail head. Throws InputError naming what the model has.
void pick_detail_head(const Settings& s, const ModelShape& shape, ModelRun& run);
// A token of the model's vocabulary as a reader sees it: GPT-2's piece, a Llama-family
// model's tokenizer.json's, "<id>" where the tokenizer has none.
std::string model_token_text(const LoadedModel& model, int64_t id);
// The same in quotes, as the views name a token in a sentence: "' the'".
std::string quoted_token(const LoadedModel& model, int64_t id);

// A head's name, "1.5": layer_head (interventions/hooked_run.h).
// The same in a file name: "layer1_head5" (the CLI's --export, the app's export menu).
std::string layer_head_file(int layer, int head);

// Runs s.text through `model`; --layer/--head (s.layer, s.head) name the head kept with every
// stage (-1/-1: none) (s.model names it; loaded by the caller, once). Throws
// InputError/ConfigError with one line: a text longer than the model's context, a
// --layer or --head the model does not have, a --top-k over its vocabulary, a --next-at
// past the tokens in view, work over the budget.
// `generated_in_view` (the app): the run covers the text and its s.generate generated tokens,
// whose ids are appended as generate appends them (decoded and typed, they
// could tokenize otherwise). Otherwise (the CLI) it covers the text, and `generated`
// holds the tokens that would follow.
ModelRun run_model(const Settings& s, const LoadedModel& model, const Budget& budget, bool generated_in_view = false);
// run_model a step at a time (the browser page draws a frame between steps): the
// constructor checks what run_model checks and generates the tokens in view, each step()
// one step of the family's traced forward (a GPT's block or part of its logits, a Llama's
// whole forward), then one the cache, the next tokens and the head scores, then with Settings::logit_lens one an entry
// of the lens (run_lens.h), and with Settings::attribute one the logit's parts
// (run_attribution.h: a forward of its own). run_model is this run to its end.
// `model` must outlive the object.
struct HeadEffectsWork;  // run_head_effects.h

class ModelRunSteps {
public:
    // `tokens`: the text's, when the caller has them (model_input_tokens(s, model)): a
    // change is tokenized once.
    ModelRunSteps(const Settings& s, const LoadedModel& model, const Budget& budget, bool generated_in_view = false,
                  std::optional<Tokenized> tokens = std::nullopt);
    int steps() const { return forward_->steps() + 1 + extra_steps_; }
    int steps_done() const { return finished_ ? steps() : forward_->steps_done() + (summed_ ? 1 : 0) + extras_done_; }
    bool done() const { return finished_; }
    // What the next step computes: "layer 3 of 12", "the logits" (or "the logits, part 2
    // of 77"), "the next tokens", "the logit lens, 2 of 13", "the logit's parts", "the heads'
    // effects, layer 3 of 12".
    std::string next_step() const;
    void step();
    ModelRun take() { return std::move(run_); }  // once done()

private:
    Settings s_;
    bool generated_in_view_;
    ModelRun run_;
    int64_t position_ = 0;
    std::unique_ptr<TracedForward> forward_;
    std::vector<int64_t> attribute_;  // Settings::attribute's ids
    std::optional<EffectMetric> metric_;  // Settings::head_effects's
    std::shared_ptr<HeadEffectsWork> effects_;  // made by the first of their steps
    // After the forward and its summing step: the lens's entries, the attribution, the
    // head effects' start and their layers.
    int extra_steps_ = 0, extras_done_ = 0;
    bool summed_ = false;  // the step after the forward's done
    bool finished_ = false;
};
// `tokens` and one more token, shown as `model` shows it (model_token_text).
Tokenized with_token(const LoadedModel& model, Tokenized tokens, int64_t id);

// "1,2,3" (spaces allowed): at most 65536 token ids, each a whole number from 0. Throws
// InputError naming --ids.
std::vector<int64_t> parse_token_ids(const std::string& text);
// The tokens a model run reads: s.ids as they are (each checked against the model's
// vocabulary), else the text by the model's tokenizer (GPT-2's, or a Llama-family folder's
// tokenizer.json: ModelFileError where it has none).
Tokenized model_input_tokens(const Settings& s, const LoadedModel& model);

// `previous` edited into `tokens`: the first k tokens both have keep previous's keys,
// values and every head's rows (causal: a position does not see the tokens after it), and
// each token after them is one cached step (the run's KeyValueCache: its query against
// the cached keys), which gives every layer's and query head's weights a row. So
// typing at the end of a long text costs a token or two, not a forward; the weights are
// the full run's within float rounding. The next tokens are `next_at`'s (unset: the last
// token's): a new position's from its step; one before the new tokens is previous's, from
// its next tokens when they are that position's, else from its logits when it is a full
// run (an extended run keeps the last row only). The run keeps every head's weights (and
// keys and values: LanguageModel::cache_stages), not the detail head's other stages: a
// full run brings those. Nothing (a full run is needed) when the tokens are previous's, share no
// first token with them, need more than most_cached_steps steps, would pass the context
// length, or next_at is past them or an earlier position previous cannot give; or when
// previous has heads switched off (the cache's steps have no hook: a full run has).
std::optional<ModelRun> extend_model_run(const ModelRun& previous, const Tokenized& tokens,
                                         std::optional<int> next_at = std::nullopt);
// The most tokens extend_model_run steps through for a text of `tokens` tokens: a step
// reads every weight for one token, the full forward once for all of them, and beyond
// about T/32 steps (8 for short texts) it is the cheaper (docs/speed.md).
size_t most_cached_steps(size_t tokens);
// `previous` and one more generated token, as extend_model_run appends it: the one its
// sampler picks from the logits after its last position, its random stream carried on.
// What the app's Append and Generate do, one run a token: M such runs from a run of the
// text alone make the very computations, and so draw the very tokens, a run generating
// M at once does (both start from a full forward of the text, then one cached step a
// token). From a run with generated tokens in view the last logits come from its full
// forward instead of a cached step: equal to float rounding. Nothing when the context
// is full. `next_at` as extend_model_run's: generation itself ignores it.
std::optional<ModelRun> extend_generated(const ModelRun& previous, std::optional<int> next_at = std::nullopt);

// `previous` with the next tokens of `next_at` (unset: the last token's): another
// position costs a copy of the run's small parts (the trace is shared) and, when the
// forward did not compute that row's logits, one row of the output head from the
// trace's final LayerNorm (1 x emb_dim x vocab), not a forward (10 s for GPT-2 at 1024
// tokens on one core). Nothing when previous is an
// extended run (it keeps the last row only) or next_at is past its tokens.
std::optional<ModelRun> with_next_at(const ModelRun& previous, std::optional<int> next_at);

// The run's detail layer (run.layer) as a chapter 3 Run: its tokens and that block's
// attention trace (inputs = the LayerNorm'd residual stream its heads read), so that the
// views of a module's pipeline draw a trained head unchanged. run.model points back.
Run layer_view(std::shared_ptr<const ModelRun> run);

}  // namespace attn
