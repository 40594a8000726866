#pragma once
// The tokenizers a text can go through, one row each: what --tokenizer and the app's menu
// offer, how each encodes, and what the budget, the embedding, the token chips and the
// emitted PyTorch program need to know of it. A new tokenizer is a row here (and its
// encoder); nothing else compares tokenizer names.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/tokenizer.h"

namespace attn {

enum class TokenizerKind { Words, Simple, Gpt2, TokenizerJson };

// What encoding texts gives: each text's tokens, and the embedding table's rows.
struct Encoded {
    std::vector<Tokenized> texts;
    int64_t vocab_size = 0;
};

struct TokenizerRow {
    TokenizerKind kind;
    const char* name;   // Settings::tokenizer; a tokenizer.json's setting is its path
    const char* label;  // the app's radio button ("" for a tokenizer.json: no button)
    const char* about;  // the app's line under the buttons
    // The embedding table's rows. Fixed (seed 004's 50,000, GPT-2's 50257), else the most an
    // estimate assumes before the vocabulary is built (simple) or read (a tokenizer.json:
    // Qwen's 152064 bounds today's models').
    int64_t vocab_size;
    bool book_vectors;  // the book's hand-written 3-d vectors (chapter 3) can embed its tokens
    bool takes_corpus;  // a corpus file (--corpus) makes its vocabulary
    bool marks_unknown; // <|unk|> is among its special marks
    // The emitted program: the comment on vocab_size, and the comment over the written-out
    // token ids ({path} is the setting, {corpus} what the vocabulary was made of).
    const char* python_vocab;
    const char* python_ids;
    // Tokenizes `texts` (both, for cross-attention) as Settings::tokenizer `setting` says,
    // the vocabulary from `corpus_file` where it takes one.
    Encoded (*encode)(const std::string& setting, const std::optional<std::string>& corpus_file,
                      const std::vector<std::string>& texts);
};

// The rows, in the menu's order; the last is a Hugging Face PATH/tokenizer.json's.
const std::vector<TokenizerRow>& tokenizer_rows();
// The row of a Settings::tokenizer value (a path ending in tokenizer.json is that row's),
// or nullptr.
const TokenizerRow* find_tokenizer(std::string_view setting);
// The same; throws TokenizeError naming the choices for a value no row has.
const TokenizerRow& tokenizer_row(std::string_view setting);
const TokenizerRow& tokenizer_row(TokenizerKind kind);
// The named choices, "words, simple, gpt2", as messages and --help list them.
std::vector<std::string> tokenizer_names();

}  // namespace attn
