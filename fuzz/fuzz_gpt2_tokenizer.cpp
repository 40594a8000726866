// GPT-2's byte-level BPE: any bytes encode (ill-formed UTF-8 included) and decode back to
// the same bytes (bpe_tokenizer.h); spans tile the text, tokens show their ids' bytes.
// The input's bytes, read as 16-bit ids, are decoded too (ids >= 50257: TokenizeError).
#include "text/gpt2_tokenizer.h"
#include "fuzz_common.h"
#include "text/utf8.h"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const Gpt2Tokenizer& tok = gpt2_tokenizer();

    const Gpt2Encoding enc = tok.encode_with_spans(text);
    const Tokenized& t = enc.tokenized;
    const size_t n = t.ids.size();
    fuzz::check(t.tokens.size() == n && enc.spans.size() == n && enc.words.size() == n, "one entry per token");
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) {
        fuzz::check(t.ids[i] >= 0 && t.ids[i] < Gpt2Tokenizer::kVocabSize, "ids inside the vocabulary");
        fuzz::check(enc.spans[i].begin == at && enc.spans[i].end > at, "spans tile the text");
        at = enc.spans[i].end;
        fuzz::check(at <= size && tok.token_bytes(t.ids[i]) == text.substr(enc.spans[i].begin, at - enc.spans[i].begin),
                    "a token's bytes are its span");
        fuzz::check(t.tokens[i] == tok.token_display(t.ids[i]), "tokens[i] == token_display(ids[i])");
        fuzz::check(i == 0 || enc.words[i] >= enc.words[i - 1], "word indices never go back");
    }
    fuzz::check(at == size, "spans cover the text");
    fuzz::check(tok.decode(t.ids) == text, "decode(encode(x)) == x");
    fuzz::check(tok.encode_ids(text) == t.ids && tok.encode(text).ids == t.ids, "encode_ids, encode agree");
    if (is_valid_utf8(text))
        for (const std::string& token : t.tokens) fuzz::check(!token.empty(), "tokens of UTF-8 text show");

    std::vector<int64_t> ids;
    for (size_t i = 0; i + 1 < size; i += 2) ids.push_back(data[i] | (data[i + 1] << 8));
    std::string joined;
    const bool decoded = fuzz::refusals_are_fine([&] { joined = tok.decode(ids); });
    bool in_range = true;
    std::string expected;
    for (int64_t id : ids) {
        if (id >= Gpt2Tokenizer::kVocabSize) in_range = false;
        else expected += tok.token_bytes(id);
    }
    fuzz::check(decoded == in_range, "decode refuses exactly the ids outside the vocabulary");
    if (decoded) fuzz::check(joined == expected, "decode joins the tokens' bytes");
    return 0;
}
