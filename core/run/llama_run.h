#pragma once
// A Llama-family model's run (core/model/llama_forward.h) on exact token ids: what the
// CLI prints for `--model DIR --ids ...`. Its cost is known from the config before any
// weight is read, and work over the budget is refused in one line.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/llama_forward.h"
#include "model/model_source.h"  // is_llama_family_folder
#include "model/next_token.h"
#include "model/sampling.h"
#include "run/memory_budget.h"
#include "text/hf_tokenizer.h"

namespace attn {


struct LlamaRun {
    std::shared_ptr<const LlamaCheckpoint> model;
    LlamaTrace trace;
    int64_t next_position = 0;  // 0-based: next_at's, else the last token's
    std::vector<TokenProbability> next_tokens;  // the 10 most probable after it
    // The folder's tokenizer.json, where it has one the app can read (else null: tokens
    // are then shown as "<id>").
    std::shared_ptr<const HfTokenizer> tokenizer;
    // --generate N: the N ids that follow the text, each the sampler's pick from the
    // logits after the last (chapter 5's generate: the argmax, or sampled with a
    // temperature and top-k), one KV-cache step a token (llama_cache.h).
    std::vector<int64_t> generated;
    Sampling sampling;
};

// A token as the JSON and the app show it: the tokenizer's text, else "<id>" (no
// tokenizer, or none for that id).
std::string llama_token_text(const HfTokenizer* tokenizer, int64_t id);
std::string llama_token_text(const LlamaRun& run, int64_t id);

// Memory and time of a forward over T tokens keeping every head's weights (and nothing
// else of the heads), for check_budget.
WorkEstimate estimate_llama_work(const LlamaConfig& c, int64_t T);

// Opens `dir`, checks the budget, runs the forward over `ids`. Throws ModelFileError
// (files, ids) or InputError (over the budget) with one line.
LlamaRun run_llama(const std::string& dir, const std::vector<int64_t>& ids, const Budget& budget,
                   std::optional<int> next_at = std::nullopt, int generate = 0, const Sampling& sampling = {});

// The same on a text, tokenized by DIR/tokenizer.json (text/hf_tokenizer.h, ids as Hugging
// Face's tokenizers gives them). Throws ModelFileError naming the missing or unsupported
// tokenizer.json, TokenizeError for a text it cannot take.
LlamaRun run_llama_on_text(const std::string& dir, const std::string& text, const Budget& budget,
                           std::optional<int> next_at = std::nullopt, int generate = 0, const Sampling& sampling = {});

// generate's N ids after a forward's last position, one KV-cache step a token, each the
// sampler's pick (its random stream carried on). The trace must keep every head's
// keys_rotated and values (llama_generation_stages()): they become the cache.
std::vector<int64_t> llama_generate(const LlamaCheckpoint& model, const LlamaTrace& trace, int generate,
                                    TokenSampler& sampler);
KeptStages llama_generation_stages();

}  // namespace attn
