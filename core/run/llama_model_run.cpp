#include "run/llama_model_run.h"

#include "run/llama_run.h"
#include "run/pipeline.h"  // InputError
#include "run/run_cache.h"
#include "run/switched_off.h"

namespace attn {

namespace {

// The Llama forward's trace in the places the views read a model's (GptTrace).
GptTrace as_model_trace(LlamaTrace&& t) {
    GptTrace trace;
    trace.ids = std::move(t.ids);
    trace.embeddings = std::move(t.embeddings);
    trace.blocks.reserve(t.blocks.size());
    for (LlamaBlockTrace& b : t.blocks)
        trace.blocks.push_back({std::move(b.inputs), std::move(b.normed1), std::move(b.attention), std::move(b.residual1),
                                std::move(b.normed2), std::move(b.mlp_hidden), std::move(b.outputs)});
    trace.final_normed = std::move(t.final_normed);
    return trace;
}

}  // namespace

ModelRun run_llama_model(const Settings& s, const LoadedModel& model, const Budget& budget, bool generated_in_view) {
    const LlamaCheckpoint& m = *model.llama;
    const LlamaConfig& c = m.config();
    ModelRun run;
    run.model = model;
    run.tokens = model_input_tokens(s, model);
    const auto text_tokens = static_cast<int64_t>(run.tokens.ids.size());
    const int64_t T = text_tokens + (generated_in_view ? s.generate : 0);
    if (text_tokens == 0) throw InputError("the text has no tokens");
    if (T > c.max_positions)
        throw InputError("the text has " + std::to_string(text_tokens) + " tokens" +
                         (generated_in_view && s.generate ? " and " + std::to_string(s.generate) + " generated" : "") +
                         "; the model reads at most " + std::to_string(c.max_positions) +
                         " (its max_position_embeddings)");
    pick_detail_head(s, model_shape(model), run);
    run.switched_off = switched_off_heads(s, model_shape(model));
    read_patch(s, model, run);
    if (s.sampling.top_k && *s.sampling.top_k > c.vocab_size)
        throw InputError("--top-k " + std::to_string(*s.sampling.top_k) + ": the model's vocabulary has " +
                         std::to_string(c.vocab_size) + " tokens");
    const int64_t position = s.next_at ? *s.next_at : T - 1;
    if (position < 0 || position >= T)
        throw InputError("--next-at " + std::to_string(position) + ": the text has " + std::to_string(T) +
                         " tokens (positions 0.." + std::to_string(T - 1) + ")");
    check_budget(estimate_llama_work(c, T + (generated_in_view ? 0 : s.generate)), budget);
    run.sampler = TokenSampler(s.sampling);  // torch.manual_seed(seed) before generate
    if (s.generate > 0) {  // from a forward over the text, one cached step a token
        const LlamaTrace prompt = llama_forward(m, run.tokens.ids, llama_generation_stages());
        run.generated = llama_generate(m, prompt, s.generate, run.sampler);
        if (generated_in_view)
            for (const int64_t id : run.generated) run.tokens = with_token(model, std::move(run.tokens), id);
    }
    // Every head's weights, and the rotated keys and values the KV cache is made of (kept
    // in place of the unrotated keys: no more numbers); the detail layer's head every stage.
    std::vector<KeptStages> keep(static_cast<size_t>(c.layers), KeptStages::only(model_run_stages(model)));
    if (run.layer >= 0) keep[static_cast<size_t>(run.layer)] = KeptStages::only(model_run_stages(model), run.head);
    LlamaTrace forward = llama_forward(m, run.tokens.ids, keep, run_z_hook(run, c.head_dim));
    run.llama_cache = std::make_shared<const LlamaCache>(llama_cache_from_trace(c, forward));
    const RowVector last_logits = std::move(forward.last_logits);
    auto trace = std::make_shared<GptTrace>(as_model_trace(std::move(forward)));
    // The logits of the positions shown (the last; --next-at's), as a GPT run keeps them.
    trace->logit_rows = {static_cast<Eigen::Index>(position)};
    if (position != T - 1) trace->logit_rows.push_back(T - 1);
    trace->logits.resize(static_cast<Eigen::Index>(trace->logit_rows.size()), last_logits.cols());
    for (size_t r = 0; r < trace->logit_rows.size(); ++r)
        trace->logits.row(static_cast<Eigen::Index>(r)) =
            trace->logit_rows[r] == T - 1 ? last_logits : m.logits(trace->final_normed.row(trace->logit_rows[r]));
    run.trace = std::move(trace);
    run.next_position = position;
    run.next_tokens = next_tokens_of(run_logits_at(run, position), s.sampling);
    if (changes_heads(run)) run.baseline_next_tokens = baseline_next_tokens(run, position, s.sampling);
    score_heads(run);
    return run;
}

}  // namespace attn
