#pragma once
// A Hugging Face tokenizer.json for byte-level BPE (GPT-2, Llama 3, Qwen2/3, SmolLM...),
// giving the ids `tokenizers` gives (Tokenizer::encode(text, add_special_tokens=true)):
//   1. added tokens are cut out of the raw text whole (leftmost, then longest);
//   2. each segment between them is normalized (none, or NFC), pre-tokenized by the
//      file's own steps (Split with the model's regex, run by Oniguruma as tokenizers runs
//      it; ByteLevel) and byte-pair merged word by word;
//   3. the post_processor's TemplateProcessing adds its tokens (e.g. <|begin_of_text|>)
//      where the file has one; the app then shows and runs them as the model would get them.
// Anything else a tokenizer.json may hold (WordPiece, Unigram/SentencePiece, Metaspace, other
// normalizers...) is refused in one line when the file is read.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/tokenizer.h"

namespace attn {

struct HfTokenizerSpec;  // hf_tokenizer_spec.h

// Whether a --tokenizer value names a tokenizer.json file (rather than words, simple, gpt2).
bool names_tokenizer_json(std::string_view tokenizer);

class HfTokenizer {
public:
    static constexpr std::uintmax_t kMaxFileBytes = 64u << 20;  // Llama 3's is 9 MB, Qwen's 11 MB

    // Reads PATH (a tokenizer.json). Throws TokenizeError, one line, for a missing, too large
    // or malformed file and for what it does not support.
    static HfTokenizer from_file(const std::string& path);
    // The same from the file's text; `where` names it in messages.
    static HfTokenizer from_json(const std::string& json_text, const std::string& where);

    std::vector<int64_t> encode_ids(std::string_view text) const;
    // tokens[i] is token_display(ids[i]); special[i] for special added tokens; word[i]
    // numbers the pre-tokenized word a token comes from.
    Tokenized encode(std::string_view text) const;
    // The text the ids stand for, as tokenizers' decode (skip_special_tokens=false) gives
    // it before its lossy UTF-8 step. Throws TokenizeError for an id outside the vocabulary.
    std::string decode(const std::vector<int64_t>& ids) const;

    int64_t vocab_size() const;  // one past the largest id, added tokens included
    bool is_special(int64_t id) const;
    // The token as a reader should see it: an added token's content, else its bytes as
    // UTF-8 with each byte outside a whole character written \xNN (as for GPT-2).
    std::string token_display(int64_t id) const;

    // The file at `path`, read once and kept while its size and time stay the same (the app
    // tokenizes again on every edit of the text; Llama 3's file takes ~0.3 s to read).
    static std::shared_ptr<const HfTokenizer> cached(const std::string& path);

private:
    explicit HfTokenizer(std::shared_ptr<const HfTokenizerSpec> spec) : spec_(std::move(spec)) {}
    std::string token_bytes(int64_t id) const;
    Tokenized encode_tokens(std::string_view text) const;
    std::shared_ptr<const HfTokenizerSpec> spec_;
};

}  // namespace attn
