#pragma once
// Chapter 2's SimpleTokenizerV2: words and punctuation of a corpus, sorted, plus
// <|endoftext|> and <|unk|>; any word outside that vocabulary becomes <|unk|>.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/tokenizer.h"

namespace attn {

class SimpleTokenizerV2 {
public:
    static constexpr std::string_view kEndOfText = "<|endoftext|>";
    static constexpr std::string_view kUnknown = "<|unk|>";
    static constexpr std::size_t kMaxCorpusBytes = 50u << 20;

    // Vocabulary = sorted unique split(corpus), then <|endoftext|>, then <|unk|> (the two
    // are not repeated if the corpus itself contains them). Throws TokenizeError if the
    // corpus has no tokens.
    explicit SimpleTokenizerV2(std::string_view corpus);

    // Reads a corpus file, with a one-line TokenizeError if it is missing, a directory,
    // empty, larger than kMaxCorpusBytes, or not UTF-8 text (NUL bytes, ill-formed UTF-8).
    static std::string load_corpus(const std::string& path);
    static SimpleTokenizerV2 from_corpus_file(const std::string& path);

    // The book's re.split(r'([,.:;?_!"()\']|--|\s)', text) with stripped, non-empty items.
    static std::vector<std::string> split(std::string_view text);

    // tokens[i] is vocabulary()[ids[i]], so an unknown word shows as <|unk|>.
    Tokenized encode(std::string_view text) const;
    // Tokens joined by spaces, minus the space before , . : ; ? ! " ( ) ' (the book's V2
    // re.sub(r'\s+([,.:;?!"()\'])', r'\1', text)). Throws TokenizeError for an unknown id.
    std::string decode(const std::vector<int64_t>& ids) const;

    const std::vector<std::string>& vocabulary() const { return vocab_; }
    int64_t vocab_size() const { return static_cast<int64_t>(vocab_.size()); }
    int64_t end_of_text_id() const { return vocab_size() - 2; }
    int64_t unknown_id() const { return vocab_size() - 1; }

private:
    std::vector<std::string> vocab_;  // sorted words, then <|endoftext|>, <|unk|>
};

}  // namespace attn
