#pragma once
// GPT-2's byte-level BPE tokenizer, giving the same ids as tiktoken's "gpt2" encoding
// called with allowed_special={"<|endoftext|>"}: "<|endoftext|>" anywhere in the text is
// the special token 50256, and everything else is pre-tokenised (gpt2_pretokenizer.h) and
// byte-pair merged by rank.
//
// Text is taken as bytes. Ill-formed UTF-8 is encoded too (its bytes become byte tokens;
// see gpt2_pretokenizer.h), so decode(encode(s)) == s for every byte string s. js-tiktoken
// cannot express such input at all (a JS string holds no stray bytes); our ids for it
// follow from treating each stray byte as one punctuation-like character.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/tokenizer.h"

namespace attn {

// Bytes [begin, end) of the encoded text.
struct ByteSpan {
    std::size_t begin;
    std::size_t end;
};

// encode()'s result plus where each token came from, for showing how words split.
struct Gpt2Encoding {
    Tokenized tokenized;              // tokens[i] = token_display(ids[i])
    std::vector<ByteSpan> spans;      // spans[i]: the bytes of the text that ids[i] stands for
    std::vector<std::size_t> words;   // words[i]: index of the pre-tokenised piece holding
                                      // token i; consecutive equal values = one word's pieces
};

class Gpt2Tokenizer {
public:
    static constexpr int64_t kEndOfText = 50256;
    static constexpr int64_t kVocabSize = 50257;

    // Loads data_path("gpt2")/encoder.json (core/base/data_dir.h).
    Gpt2Tokenizer();
    // Loads vocab_dir/encoder.json (GPT-2's token -> id map). Throws TokenizeError if the
    // file is missing or is not GPT-2's vocabulary.
    explicit Gpt2Tokenizer(const std::string& vocab_dir);

    std::vector<int64_t> encode_ids(std::string_view text) const;
    Tokenized encode(std::string_view text) const;
    Gpt2Encoding encode_with_spans(std::string_view text) const;

    // The exact bytes the ids stand for. Throws TokenizeError for an id outside the vocabulary.
    std::string decode(const std::vector<int64_t>& ids) const;

    int64_t vocab_size() const { return kVocabSize; }
    bool is_special(int64_t id) const { return id == kEndOfText; }
    // The raw bytes of one token (may be part of a UTF-8 character).
    std::string_view token_bytes(int64_t id) const;
    // A token as a reader should see it: its UTF-8 text, with each byte that is not part of a
    // whole character written as \xNN (e.g. "\xe2" for the first byte of "—").
    std::string token_display(int64_t id) const;

private:
    template <class Sink>
    void encode_into(std::string_view text, Sink&& sink) const;
    template <class Sink>
    void merge_piece(std::string_view piece, std::size_t offset, std::vector<uint32_t>& scratch,
                     Sink&& sink) const;
    int32_t rank_of(std::string_view bytes) const;
    void check_id(int64_t id) const;

    std::string bytes_;               // every token's bytes, by id
    std::vector<uint32_t> offsets_;   // token id -> bytes_[offsets_[id], offsets_[id + 1])
    std::vector<int32_t> slots_;      // open-addressing hash: token bytes -> id (-1 = empty)
    std::size_t slot_mask_ = 0;
};

// The process's one GPT-2 tokenizer from the data folder (core/base/data_dir.h), loaded on first use (~9 ms);
// encode and decode keep no state, so every thread may share it.
const Gpt2Tokenizer& gpt2_tokenizer();

}  // namespace attn
