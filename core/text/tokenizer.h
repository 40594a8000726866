#pragma once
// Text -> tokens and ids. Every tokenizer of the project (seed 004's `words`,
// chapter 2's `simple`, GPT-2's `gpt2`) fills the same struct.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/user_error.h"

namespace attn {

struct Tokenized {
    std::vector<std::string> tokens;  // as a reader should see each token (UTF-8)
    std::vector<int64_t> ids;         // same length as tokens
    // Filled where the tokenizer knows them (else empty):
    std::vector<bool> special;        // <|endoftext|>, <|unk|>
    std::vector<int64_t> word;        // pieces of one word share a value (GPT-2's sub-words)
};

// Thrown for input a tokenizer cannot take (an unknown word, an unreadable corpus, ...);
// the message is one line, fit for a user.
struct TokenizeError : UserError {
    using UserError::UserError;
};

// Seed 004's tokenizer: commas dropped, split on whitespace, and the vocabulary is the
// sorted unique words of the given texts (both texts, for cross-attention).
class WordsTokenizer {
public:
    explicit WordsTokenizer(const std::vector<std::string>& texts);
    static std::vector<std::string> split(const std::string& text);
    Tokenized encode(const std::string& text) const;  // every word of `texts` is known
    const std::vector<std::string>& vocabulary() const { return vocab_; }

private:
    std::vector<std::string> vocab_;
};

}  // namespace attn
