#include "run/llama_run.h"

#include <filesystem>

#include "base/file_io.h"
#include "model/llama_cache.h"
#include "run/pipeline.h"  // InputError
#include "numerics/gemm.h"

namespace attn {

WorkEstimate estimate_llama_work(const LlamaConfig& c, int64_t T) {
    const double t = static_cast<double>(T), d = c.hidden_size, hd = c.head_dim, H = c.heads, G = c.kv_heads,
                 ff = c.intermediate_size, L = c.layers, V = static_cast<double>(c.vocab_size);
    const double layer_weights = d * (H + 2 * G) * hd + H * hd * d + 3 * d * ff;  // floats, converted a layer at a time
    // Per layer kept: every head's T x T weights, the residual stream's activations, the
    // projections and the MLP's hidden (x4 bytes).
    const double kept_per_layer = H * t * t + t * (6 * d + 2 * (H + 2 * G) * hd + 2 * ff);
    const double temporaries = 4 * t * t + t * (H + 2 * G) * hd * 2 + t * ff * 2;  // one head's scores, a layer's
    WorkEstimate w;
    w.bytes = 4.0 * (layer_weights + L * kept_per_layer + temporaries + 4096 * d);
    const double flops = L * (2 * t * layer_weights + 4 * H * t * t * hd) + 2 * V * d;
    w.forward_seconds = flops / kEstimatedFlopsPerSecond + 4.0 * L * layer_weights / 1e9;  // conversion: ~1 GB/s
    w.seconds = w.forward_seconds;
    w.lower = "the number of token ids (" + std::to_string(T) + ")";
    return w;
}

namespace {

std::string tokenizer_path(const std::string& dir) { return dir + "/tokenizer.json"; }

// Exact ids need no tokenizer: one the app cannot read only costs the tokens' text.
std::shared_ptr<const HfTokenizer> optional_tokenizer(const std::string& dir) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(tokenizer_path(dir), ec)) return nullptr;
    try {
        return HfTokenizer::cached(tokenizer_path(dir));
    } catch (const TokenizeError&) {
        return nullptr;
    }
}

}  // namespace

std::string llama_token_text(const HfTokenizer* tokenizer, int64_t id) {
    if (tokenizer && id >= 0 && id < tokenizer->vocab_size()) {
        try {
            return tokenizer->token_display(id);
        } catch (const TokenizeError&) {  // an id the tokenizer has no token for
        }
    }
    return "<" + std::to_string(id) + ">";
}

std::string llama_token_text(const LlamaRun& run, int64_t id) { return llama_token_text(run.tokenizer.get(), id); }

LlamaRun run_llama_on_text(const std::string& dir, const std::string& text, const Budget& budget,
                           std::optional<int> next_at, int generate, const Sampling& sampling) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(tokenizer_path(dir), ec)) {
        const bool sentencepiece = std::filesystem::is_regular_file(dir + "/tokenizer.model", ec);
        throw ModelFileError(dir + " has no tokenizer.json to tokenize the text" +
                             (sentencepiece ? " (its tokenizer.model is SentencePiece's, which attnscope does not read)" : "") +
                             ": give the token ids with --ids 1,2,3");
    }
    std::shared_ptr<const HfTokenizer> tokenizer;
    try {
        tokenizer = HfTokenizer::cached(tokenizer_path(dir));
    } catch (const TokenizeError& e) {
        throw ModelFileError(std::string(e.what()) + " (--ids 1,2,3 runs the model without it)");
    }
    const std::vector<int64_t> ids = tokenizer->encode_ids(text);
    if (ids.empty()) throw InputError("the text has no tokens");
    LlamaRun run = run_llama(dir, ids, budget, next_at, generate, sampling);
    run.tokenizer = std::move(tokenizer);
    return run;
}

LlamaRun run_llama(const std::string& dir, const std::vector<int64_t>& ids, const Budget& budget,
                   std::optional<int> next_at, int generate, const Sampling& sampling) {
    LlamaRun run;
    run.tokenizer = optional_tokenizer(dir);
    run.model = std::make_shared<const LlamaCheckpoint>(dir);
    const LlamaConfig& c = run.model->config();
    const auto T = static_cast<int64_t>(ids.size());
    if (generate > 0 && T + generate > c.max_positions)
        throw InputError(std::to_string(T) + " token ids and " + std::to_string(generate) +
                         " generated are more than the model's max_position_embeddings (" +
                         std::to_string(c.max_positions) + ")");
    if (sampling.top_k && *sampling.top_k > c.vocab_size)
        throw InputError("--top-k " + std::to_string(*sampling.top_k) + ": the model's vocabulary has " +
                         std::to_string(c.vocab_size) + " tokens");
    check_budget(estimate_llama_work(c, T + generate), budget);
    // Generating: the heads' rotated keys and values too, which become the KV cache.
    run.trace = llama_forward(*run.model, ids,
                              generate > 0 ? llama_generation_stages() : KeptStages::only({"weights"}));
    run.next_position = next_at ? *next_at : static_cast<int64_t>(ids.size()) - 1;
    if (run.next_position < 0 || run.next_position >= static_cast<int64_t>(ids.size()))
        throw InputError("--next-at " + std::to_string(run.next_position) + " is past the " +
                         std::to_string(ids.size()) + " token ids (0-based)");
    const RowVector logits = run.next_position == static_cast<int64_t>(ids.size()) - 1
                                 ? run.trace.last_logits
                                 : llama_logits_at(*run.model, run.trace, run.next_position);
    run.next_tokens = top_next_tokens(logits, 10);
    run.sampling = sampling;
    TokenSampler sampler(sampling);  // torch.manual_seed(seed) before generate
    run.generated = llama_generate(*run.model, run.trace, generate, sampler);
    return run;
}

std::vector<int64_t> llama_generate(const LlamaCheckpoint& model, const LlamaTrace& trace, int generate,
                                    TokenSampler& sampler) {
    std::vector<int64_t> generated;
    if (generate <= 0) return generated;
    LlamaCache cache = llama_cache_from_trace(model.config(), trace);
    RowVector next = trace.last_logits;
    for (int n = 0; n < generate; ++n) {
        generated.push_back(sampler.next(next));
        if (n + 1 < generate) next = llama_append_token(model, cache, generated.back()).logits;
    }
    return generated;
}

KeptStages llama_generation_stages() { return KeptStages::only({"weights", "keys_rotated", "values"}); }

}  // namespace attn
