#pragma once
// Everything a user chooses: the text, how it becomes vectors, and the attention
// module. The CLI's flags and the app's controls both fill this one struct.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "user_error.h"
#include "attention.h"

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
    std::vector<std::string> stages;   // CLI output filter; empty = every stage
    int time_runs = 0;                 // CLI --time N
    bool emit_pytorch = false;         // CLI --emit-pytorch: print a Python program instead
    std::optional<std::string> export_dir;  // CLI --export DIR: write every stage as files
    std::optional<uint64_t> memory_budget;  // --memory-budget SIZE; default: memory_budget.h
};

struct ArgsError : UserError {
    using UserError::UserError;
};

struct ParsedArgs {
    Settings settings;
    std::vector<std::string> rest;  // arguments this parser does not know (the app's own)
    bool help = false;
    bool dropout_given = false;  // --dropout was on the command line
};

// Parses the flags of attnscope-cli. Throws ArgsError with a one-line message.
ParsedArgs parse_settings(const std::vector<std::string>& args);
std::string settings_usage();

}  // namespace attn
