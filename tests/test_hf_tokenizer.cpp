// Hugging Face tokenizer.json (core/text/hf_tokenizer.h) on small files written here: the
// BPE merge order, both spellings of merges, ignore_merges, added and special tokens,
// TemplateProcessing, decoding, and the one-line refusals of what is not byte-level BPE.
// tests/cli_hf_tokenizer.test.sh compares real files with transformers.js's ids.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>
#include <vector>

#include "text/byte_level.h"
#include "text/hf_tokenizer.h"

using attn::HfTokenizer;
using attn::TokenizeError;
using nlohmann::json;

namespace {

// Every byte as a token (ids 0..255 in byte order), then `extra` tokens from 256 on.
json byte_vocab(const std::vector<std::string>& extra) {
    json vocab = json::object();
    for (int b = 0; b < 256; ++b) vocab[attn::to_byte_level(std::string(1, static_cast<char>(b)))] = b;
    for (size_t i = 0; i < extra.size(); ++i) vocab[extra[i]] = 256 + static_cast<int>(i);
    return vocab;
}

json byte_level(bool add_prefix_space = false, bool use_regex = true) {
    return {{"type", "ByteLevel"}, {"add_prefix_space", add_prefix_space}, {"trim_offsets", true}, {"use_regex", use_regex}};
}

// A GPT-2-shaped tokenizer.json: ByteLevel pre-tokenizer and decoder, no added tokens.
json tokenizer_json(json vocab, json merges) {
    return {{"version", "1.0"},
            {"truncation", nullptr},
            {"padding", nullptr},
            {"added_tokens", json::array()},
            {"normalizer", nullptr},
            {"pre_tokenizer", byte_level()},
            {"post_processor", byte_level()},
            {"decoder", byte_level()},
            {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"vocab", vocab}, {"merges", merges}}}};
}

HfTokenizer load(const json& j) { return HfTokenizer::from_json(j.dump(), "test/tokenizer.json"); }

std::string refusal(const json& j) {
    try {
        load(j);
    } catch (const TokenizeError& e) {
        return e.what();
    }
    return "(accepted)";
}

json added_token(int id, const std::string& content, bool special) {
    return {{"id", id},          {"content", content}, {"single_word", false}, {"lstrip", false},
            {"rstrip", false},   {"normalized", false}, {"special", special}};
}

}  // namespace

TEST_CASE("hf tokenizer merges the lowest-ranked pair first, the leftmost of equal ones") {
    // "ab" then "bc": in "abc" the rank-0 pair wins although "bc" would be as long.
    const json vocab = byte_vocab({"ab", "bc", "abc", "aa"});
    HfTokenizer t = load(tokenizer_json(vocab, {"a b", "b c", "ab c", "a a"}));
    CHECK(t.encode_ids("abc") == std::vector<int64_t>{256 + 2});   // a b -> ab, ab c -> abc
    CHECK(t.encode_ids("bc") == std::vector<int64_t>{257});
    CHECK(t.encode_ids("aaa") == std::vector<int64_t>{259, 'a'});  // the leftmost "a a" merges first
    // The same merges as [left, right] pairs, and their ranks reversed: "bc" now wins.
    HfTokenizer pairs = load(tokenizer_json(vocab, json::array({json::array({"b", "c"}), json::array({"a", "b"})})));
    CHECK(pairs.encode_ids("abc") == std::vector<int64_t>{'a', 257});
}

TEST_CASE("hf tokenizer encodes bytes as ByteLevel spells them, and decodes back") {
    HfTokenizer t = load(tokenizer_json(byte_vocab({"\u0120w", "\u0120wo"}), {"\u0120 w", "\u0120w o"}));
    // ByteLevel's regex cuts " wo" off "hi" first; a space is spelled U+0120.
    CHECK(t.encode_ids("hi wo") == std::vector<int64_t>{'h', 'i', 257});
    const std::string text = "caf\xc3\xa9 \xf0\x9f\xa4\x97\n\t";
    const std::vector<int64_t> ids = t.encode_ids(text);
    CHECK(ids.size() == text.size());  // no merges apply: one token per byte
    CHECK(t.decode(ids) == text);
    const attn::Tokenized tok = t.encode("\xc3\xa9");
    CHECK(tok.tokens == std::vector<std::string>{"\\xc3", "\\xa9"});  // half characters show as bytes
    CHECK(t.token_display(257) == " wo");
    CHECK_THROWS_WITH(t.decode({300}), "token id 300 is not in the tokenizer's vocabulary");
    CHECK_THROWS_WITH(t.encode_ids("\xff"), Catch::Contains("not valid UTF-8"));
}

TEST_CASE("hf tokenizer's ignore_merges takes a whole word from the vocabulary") {
    json j = tokenizer_json(byte_vocab({"ab", "abc"}), {"a b"});  // no merge builds "abc"
    CHECK(load(j).encode_ids("abc") == std::vector<int64_t>{256, 'c'});
    j["model"]["ignore_merges"] = true;
    CHECK(load(j).encode_ids("abc") == std::vector<int64_t>{257});
}

TEST_CASE("hf tokenizer cuts added tokens out of the raw text whole, the longest first") {
    json j = tokenizer_json(byte_vocab({}), json::array());
    j["added_tokens"] = {added_token(300, "<|end|>", true), added_token(301, "<|end|>x", false),
                         added_token(302, "<|endoftext|>", true)};
    HfTokenizer t = load(j);
    const attn::Tokenized tok = t.encode("a<|endoftext|>b<|end|>x<|end|>");
    CHECK(tok.ids == std::vector<int64_t>{'a', 302, 'b', 301, 300});
    CHECK(tok.tokens == std::vector<std::string>{"a", "<|endoftext|>", "b", "<|end|>x", "<|end|>"});
    CHECK(tok.special == std::vector<bool>{false, true, false, false, true});
    CHECK(t.decode(tok.ids) == "a<|endoftext|>b<|end|>x<|end|>");
    CHECK(t.vocab_size() == 303);
    // An added token splits the text: ByteLevel's regex sees each side alone.
    CHECK(t.encode_ids(" <|end|> ") == std::vector<int64_t>{' ', 300, ' '});
}

TEST_CASE("hf tokenizer's added tokens take the whitespace beside them with lstrip and rstrip") {
    json j = tokenizer_json(byte_vocab({}), json::array());
    json mask = added_token(300, "<mask>", true);
    mask["lstrip"] = true;
    mask["rstrip"] = true;
    j["added_tokens"] = {mask};
    CHECK(load(j).encode_ids("a  <mask>\t b") == std::vector<int64_t>{'a', 300, 'b'});
}

TEST_CASE("hf tokenizer adds TemplateProcessing's tokens around the text") {
    json j = tokenizer_json(byte_vocab({}), json::array());
    j["added_tokens"] = {added_token(300, "<|begin_of_text|>", true), added_token(301, "<|eot|>", true)};
    j["post_processor"] = json::parse(R"({"type": "Sequence", "processors": [
        {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
        {"type": "TemplateProcessing",
         "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                    {"SpecialToken": {"id": "<|eot|>", "type_id": 0}}],
         "pair": [],
         "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", "ids": [300], "tokens": ["<|begin_of_text|>"]},
                            "<|eot|>": {"id": "<|eot|>", "ids": [301], "tokens": ["<|eot|>"]}}}]})");
    const attn::Tokenized tok = load(j).encode("hi");
    CHECK(tok.ids == std::vector<int64_t>{300, 'h', 'i', 301});
    CHECK(tok.tokens.front() == "<|begin_of_text|>");
}

TEST_CASE("hf tokenizer with the NFC normalizer takes text already in NFC and refuses the rest") {
    json j = tokenizer_json(byte_vocab({}), json::array());
    j["normalizer"] = {{"type", "NFC"}};
    HfTokenizer t = load(j);
    CHECK(t.encode_ids("caf\xc3\xa9").size() == 5);           // é composed: NFC leaves it
    CHECK(t.encode_ids("\xe4\xbd\xa0\xe5\xa5\xbd").size() == 6);  // 你好
    CHECK_THROWS_WITH(t.encode_ids("cafe\xcc\x81"), "the text needs Unicode NFC normalization (at U+0301), which "
                                                    "attnscope does not do yet: type the composed characters");
    CHECK_THROWS_WITH(t.encode_ids("\xe2\x84\xab"), Catch::Contains("U+212B"));  // ANGSTROM SIGN -> Å
}

TEST_CASE("hf tokenizer refuses what is not byte-level BPE in one line") {
    const json ok = tokenizer_json(byte_vocab({"ab"}), {"a b"});
    CHECK(refusal(ok) == "(accepted)");
    const auto with = [&](const json::json_pointer& at, const json& value) {
        json j = ok;
        j[at] = value;
        return refusal(j);
    };
    CHECK(with("/model/type"_json_pointer, "Unigram") ==
          "test/tokenizer.json: model type Unigram (SentencePiece) is not supported: only byte-level BPE is");
    CHECK(with("/model/type"_json_pointer, "WordPiece") ==
          "test/tokenizer.json: model type WordPiece is not supported: only byte-level BPE is");
    CHECK_THAT(with("/model/byte_fallback"_json_pointer, true), Catch::Contains("byte_fallback"));
    CHECK_THAT(with("/pre_tokenizer"_json_pointer, {{"type", "Metaspace"}, {"replacement", "\u2581"}}),
               Catch::Contains("pre_tokenizer Metaspace (SentencePiece's) is not supported"));
    CHECK_THAT(with("/pre_tokenizer"_json_pointer, nullptr), Catch::Contains("no ByteLevel step"));
    CHECK_THAT(with("/normalizer"_json_pointer, {{"type", "Lowercase"}}), Catch::Contains("normalizer Lowercase"));
    CHECK_THAT(with("/decoder"_json_pointer, {{"type", "WordPiece"}}), Catch::Contains("decoder WordPiece"));
    CHECK_THAT(with("/post_processor"_json_pointer, {{"type", "BertProcessing"}}), Catch::Contains("BertProcessing"));
    CHECK_THAT(with("/model/merges"_json_pointer, {"a x"}), Catch::Contains("'ax', which is not in the vocab"));
    CHECK_THAT(with("/model/merges"_json_pointer, {"zz a"}), Catch::Contains("'zz', which is not in the vocab"));
    CHECK_THAT(with("/model/merges"_json_pointer, {"ab"}), Catch::Contains("is not 'left right'"));
    CHECK_THAT(with("/model/vocab/ab"_json_pointer, 1 << 30), Catch::Contains("far past the number of tokens"));
    CHECK_THAT(with("/truncation"_json_pointer, {{"max_length", 8}}), Catch::Contains("truncation"));
    CHECK_THAT(with("/pre_tokenizer"_json_pointer, json::parse(R"({"type": "Sequence", "pretokenizers": [
                        {"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated"},
                        {"type": "ByteLevel", "add_prefix_space": false}]})")),
               Catch::Contains("does not compile"));
    json nested = {{"type", "NFC"}};
    for (int i = 0; i < 20; ++i) nested = {{"type", "Sequence"}, {"normalizers", {nested}}};
    CHECK_THAT(with("/normalizer"_json_pointer, nested), Catch::Contains("nested more than 8 deep"));
    json no_model = ok;
    no_model.erase("model");
    CHECK_THAT(refusal(no_model), Catch::Contains("no \"model\""));
    CHECK_THROWS_WITH(HfTokenizer::from_json("{\"model\": ", "x.json"), "x.json: not valid JSON");
    for (const std::string& message : {with("/model/type"_json_pointer, "Unigram"), refusal(no_model)})
        CHECK(message.find('\n') == std::string::npos);
}

TEST_CASE("hf tokenizer refuses a file over its size limit before reading it") {
    const std::string dir = std::filesystem::temp_directory_path() / ("attnscope-hf-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/tokenizer.json";
    std::ofstream(path) << "{}";
    std::filesystem::resize_file(path, HfTokenizer::kMaxFileBytes + 1);  // sparse: no 64 MB written
    CHECK_THROWS_WITH(HfTokenizer::from_file(path), Catch::Contains("a tokenizer.json is at most"));
    CHECK_THROWS_WITH(HfTokenizer::from_file(dir + "/missing/tokenizer.json"),
                      "tokenizer.json not found: " + dir + "/missing/tokenizer.json");
    std::filesystem::remove_all(dir);
}
