#pragma once
// Everything a user chooses: the text, how it becomes vectors, and the attention
// module. The CLI's flags and the app's controls both fill this one struct.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/user_error.h"
#include "attention/attention.h"
#include "model/sampling.h"
#include "settings/setting_table.h"

namespace attn {

struct Settings {
    std::string text = "Your journey starts with one step";
    std::optional<std::string> text2;  // cross-attention's keys and values
    std::string tokenizer = "words";   // words | simple | gpt2
    std::string embedding = "auto";    // auto | book | random
    std::optional<std::string> corpus_file;  // vocabulary of the simple tokenizer
    int d_in = 3;
    std::optional<int> d_out_v;        // defaults to d_out
    uint64_t embed_seed = 123;
    std::optional<int64_t> vocab_size;      // defaults to the tokenizer's (words: 50000)
    std::optional<int64_t> context_length;  // defaults to the longest text's token count
    bool pos = false;
    AttentionConfig attention;
    // A GPT model instead of the chapter 3 module (core/run/model_run.h): "gpt-ch4"
    // (chapter 4's GPTModel seeded with attention.seed), "sotu-small" (the shipped trained
    // model), "gpt2" (found in the Hugging Face cache), or a checkpoint's path.
    std::optional<std::string> model;
    // Exact token ids the model reads instead of the text's tokens ("1,2,3"; with model):
    // its tokenizer skipped (model_input_tokens in core/run/model_run.h).
    std::optional<std::string> ids;
    std::optional<int> layer, head;  // the head whose every stage is shown (with model)
    int generate = 0;                // tokens generated after the text (with model)
    // How they are chosen: chapter 5's temperature and top-k, and the seed of the random
    // stream, its own (--seed draws gpt-ch4's weights, and a checkpoint has none).
    Sampling sampling;
    // The 0-based position whose next-token distribution is shown (with model); unset:
    // the last token's. Generation always continues after the last token.
    std::optional<int> next_at;
    // Heads switched off (with model): "5.1,5.5", their z set to zero before the output
    // projection at every position (core/interventions/; the CLI's --ablate-mode and
    // --ablate-at say more).
    std::optional<std::string> ablate;
    // Heads patched from another text (with model): "1.2,3.0", their z taken from the run
    // of patch_from (as many tokens) at every position; patch_from is that text, read by the
    // model's tokenizer, or token ids where the text is ids (Settings::ids). The CLI's
    // --patch-at and --patch-from-ids say more.
    std::optional<std::string> patch, patch_from;
    // What the model would say after each block (with model): the logit lens, at the
    // positions up to the one whose next tokens are shown (core/run/run_lens.h).
    bool logit_lens = false;
    // A logit split into its parts (with model): "ID" or "ID,ID2" (ID's logit minus
    // ID2's) after the position whose next tokens are shown (core/run/run_attribution.h).
    std::optional<std::string> attribute;
    // Which heads matter (with model): "prob:ID" or "logit-diff:ID1,ID2" after the position
    // whose next tokens are shown, with each head alone switched off, or patched from
    // patch_from where that is given (core/run/run_head_effects.h).
    std::optional<std::string> head_effects;
    // Not a choice of what to compute but how much may be spent on it: both programs
    // take --memory-budget; session files and lessons do not keep it.
    std::optional<uint64_t> memory_budget;  // default: memory_budget.h
};

// Every setting of the settings table (setting_table.h) equal; the memory budget aside.
bool operator==(const Settings& a, const Settings& b);
inline bool operator!=(const Settings& a, const Settings& b) { return !(a == b); }

struct ParsedArgs {
    Settings settings;
    std::vector<std::string> rest;  // arguments this parser does not know (the CLI's or app's own)
    bool help = false;
};

// Parses the flags of the settings table, and --memory-budget and --help; each value
// is checked against its row's range. Throws ArgsError with a one-line message.
ParsedArgs parse_settings(const std::vector<std::string>& args);
// The settings' part of --help, from the table.
std::string settings_usage();

}  // namespace attn
