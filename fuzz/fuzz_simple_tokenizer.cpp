// Chapter 2's SimpleTokenizerV2: input = CORPUS [\0 TEXT]. The corpus becomes the
// vocabulary; the corpus itself must then encode without <|unk|> and decode back to the
// same tokens; any text encodes to its split items or <|unk|>, and decodes back.
#include <algorithm>
#include <optional>

#include "fuzz_common.h"
#include "text/simple_tokenizer.h"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t cut = input.find('\0');
    const std::string corpus = input.substr(0, cut);
    const std::string text = cut == std::string::npos ? std::string() : input.substr(cut + 1);

    const std::vector<std::string> corpus_words = SimpleTokenizerV2::split(corpus);
    for (const std::string& w : corpus_words) fuzz::check(!w.empty(), "split gives non-empty items");

    std::optional<SimpleTokenizerV2> tok;
    const bool built = fuzz::refusals_are_fine([&] { tok.emplace(corpus); });
    fuzz::check(built == !corpus_words.empty(), "the vocabulary is refused exactly when the corpus has no words");
    if (!built) return 0;

    const auto& vocab = tok->vocabulary();
    fuzz::check(vocab.size() >= 2 && vocab[vocab.size() - 2] == SimpleTokenizerV2::kEndOfText &&
                    vocab.back() == SimpleTokenizerV2::kUnknown,
                "<|endoftext|>, <|unk|> close the vocabulary");
    fuzz::check(std::adjacent_find(vocab.begin(), vocab.end() - 2, std::greater_equal<>()) == vocab.end() - 2,
                "the words are sorted and unique");

    // A text made of corpus words: no <|unk|> (unless the corpus says <|unk|> itself).
    const Tokenized enc = tok->encode(corpus);
    fuzz::check(enc.tokens == corpus_words, "encode(corpus).tokens == split(corpus)");
    for (size_t i = 0; i < enc.ids.size(); ++i)
        fuzz::check(enc.ids[i] != tok->unknown_id() || corpus_words[i] == SimpleTokenizerV2::kUnknown,
                    "every corpus word is in the vocabulary");
    fuzz::check(SimpleTokenizerV2::split(tok->decode(enc.ids)) == corpus_words,
                "split(decode(encode(corpus))) == split(corpus)");

    // Any text: each token is its split item or <|unk|>; decoding gives those tokens back.
    const std::vector<std::string> text_words = SimpleTokenizerV2::split(text);
    const Tokenized t = tok->encode(text);
    fuzz::check(t.ids.size() == text_words.size() && t.tokens.size() == text_words.size(), "one token per split item");
    for (size_t i = 0; i < t.ids.size(); ++i) {
        fuzz::check(t.ids[i] >= 0 && t.ids[i] < tok->vocab_size() && vocab[t.ids[i]] == t.tokens[i],
                    "tokens[i] == vocabulary[ids[i]]");
        fuzz::check(t.tokens[i] == text_words[i] || t.ids[i] == tok->unknown_id(), "a token is its word or <|unk|>");
    }
    fuzz::check(SimpleTokenizerV2::split(tok->decode(t.ids)) == t.tokens, "split(decode(ids)) == tokens");

    // Ids from the text's bytes, some outside the vocabulary: TokenizeError.
    std::vector<int64_t> ids;
    for (unsigned char c : text) ids.push_back(static_cast<int64_t>(c) % (tok->vocab_size() + 2) - 1);
    fuzz::refusals_are_fine([&] { tok->decode(ids); });
    return 0;
}
