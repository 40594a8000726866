// A Hugging Face tokenizer.json from strangers (text/hf_tokenizer.h). The first byte picks
// what the rest is: even, a whole tokenizer.json, read and, if it reads, run on a few
// texts (ids inside the vocabulary, one token text per id); odd, a Split regex and a text
// ("REGEX\0TEXT") in an otherwise fixed byte-level file, so that Oniguruma's matching and
// the split behaviours get arbitrary patterns: the pieces then tile the text, and
// decode(encode(text)) == text for every UTF-8 text.
#include <nlohmann/json.hpp>

#include "fuzz_common.h"
#include "text/byte_level.h"
#include "text/hf_tokenizer.h"
#include "text/utf8.h"

using namespace attn;

namespace {

const char* const kBehaviors[] = {"Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"};

// A byte-level BPE with every byte as a token and one merge, Split by `regex` first.
std::string file_with_split(const std::string& regex, const char* behavior, bool invert) {
    nlohmann::json vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b) vocab[to_byte_level(std::string(1, static_cast<char>(b)))] = b;
    vocab["ab"] = 256;
    const nlohmann::json byte_level = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}};
    const nlohmann::json split = {
        {"type", "Split"}, {"pattern", {{"Regex", regex}}}, {"behavior", behavior}, {"invert", invert}};
    return nlohmann::json{{"added_tokens", {{{"id", 257}, {"content", "<|x|>"}, {"special", true}}}},
                          {"pre_tokenizer", {{"type", "Sequence"}, {"pretokenizers", {split, byte_level}}}},
                          {"decoder", byte_level},
                          {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"a b"}}}}}
        .dump();
}

void check_encoding(const HfTokenizer& tok, const std::string& text) {
    Tokenized t;
    if (!fuzz::refusals_are_fine([&] { t = tok.encode(text); })) return;
    fuzz::check(t.tokens.size() == t.ids.size() && t.special.size() == t.ids.size(), "one entry per token");
    for (const int64_t id : t.ids) fuzz::check(id >= 0 && id < tok.vocab_size(), "ids inside the vocabulary");
    fuzz::refusals_are_fine([&] { tok.decode(t.ids); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
    if (data[0] % 2 == 0) {
        std::optional<HfTokenizer> tok;
        if (!fuzz::refusals_are_fine([&] { tok.emplace(HfTokenizer::from_json(rest, "tokenizer.json")); })) return 0;
        for (const char* text : {"Hello, world! 123", " \n\t x", "caf\xc3\xa9 \xf0\x9f\xa4\x97 <|endoftext|>", ""})
            check_encoding(*tok, text);
        return 0;
    }
    const size_t cut = rest.find('\0');
    if (cut == std::string::npos || cut > 64 || rest.size() - cut > 512) return 0;
    const std::string regex = rest.substr(0, cut), text = rest.substr(cut + 1);
    if (!is_valid_utf8(regex)) return 0;  // a JSON file holds UTF-8 only (the even half tries the rest)
    std::optional<HfTokenizer> tok;
    const char* behavior = kBehaviors[(data[0] >> 1) % 4];
    if (!fuzz::refusals_are_fine([&] { tok.emplace(HfTokenizer::from_json(file_with_split(regex, behavior, data[0] & 8), "t")); }))
        return 0;
    check_encoding(*tok, text);
    if (is_valid_utf8(text)) {
        std::string decoded;
        fuzz::check(fuzz::refusals_are_fine([&] { decoded = tok->decode(tok->encode_ids(text)); }), "UTF-8 text encodes");
        fuzz::check(decoded == text, "decode(encode(text)) == text when the splits keep every byte");
    }
    return 0;
}
