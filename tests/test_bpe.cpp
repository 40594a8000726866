// GPT-2 BPE (core/text/gpt2_tokenizer.h) against tiktoken: the book's example, and the golden ids
// js-tiktoken gave for tests/bpe/bpe_golden.json (made by tests/bpe/make_bpe_golden.js).
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "text/gpt2_tokenizer.h"
#include "base/data_dir.h"

namespace {

const attn::Gpt2Tokenizer& gpt2() {
    static const attn::Gpt2Tokenizer tokenizer;  // loading once keeps the suite fast
    return tokenizer;
}

struct GoldenCase {
    std::string name;
    std::string bytes;
    std::vector<int64_t> ids;
};

std::vector<GoldenCase> golden_cases() {
    std::ifstream in(std::string(ATTNSCOPE_TESTS_DIR) + "/bpe/bpe_golden.json");
    REQUIRE(in);
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::vector<GoldenCase> cases;
    for (const auto& c : doc.at("cases")) {
        GoldenCase g;
        g.name = c.at("name").get<std::string>();
        if (c.contains("text")) {
            g.bytes = c.at("text").get<std::string>();
        } else {
            const std::string hex = c.at("hex").get<std::string>();
            for (std::size_t i = 0; i < hex.size(); i += 2)
                g.bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
        }
        g.ids = c.at("ids").get<std::vector<int64_t>>();
        cases.push_back(std::move(g));
    }
    return cases;
}

// GPT-2's bytes_to_unicode: the printable code point that spells each byte in its files.
std::map<std::string, char> byte_spellings() {
    std::map<std::string, char> spelled;
    int next = 256;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        const int cp = printable ? b : next++;
        std::string utf8;
        if (cp < 0x80) {
            utf8 = std::string(1, static_cast<char>(cp));
        } else {
            utf8 += static_cast<char>(0xC0 | (cp >> 6));
            utf8 += static_cast<char>(0x80 | (cp & 0x3F));
        }
        spelled[utf8] = static_cast<char>(b);
    }
    return spelled;
}

std::string unspell(const std::string& token, const std::map<std::string, char>& spelled) {
    std::string bytes;
    for (std::size_t i = 0; i < token.size();) {
        const std::size_t len = (static_cast<unsigned char>(token[i]) < 0x80) ? 1 : 2;
        bytes.push_back(spelled.at(token.substr(i, len)));
        i += len;
    }
    return bytes;
}

}  // namespace

TEST_CASE("gpt2 encodes the book's tiktoken example to tiktoken's ids", "[bpe]") {
    const std::string text =
        "Hello, do you like tea? <|endoftext|> In the sunlit terraces"
        "of someunknownPlace.";
    const std::vector<int64_t> expected{15496, 11,   466,   345,   588,  8887, 30,    220,   50256, 554,
                                        262,   4252, 18250, 8812,  2114, 1659, 617,   34680, 27271, 13};
    CHECK(gpt2().encode_ids(text) == expected);
    CHECK(gpt2().decode(expected) == text);
}

TEST_CASE("gpt2 gives js-tiktoken's ids for every golden string", "[bpe]") {
    const auto cases = golden_cases();
    REQUIRE(cases.size() >= 300);
    int ill_formed = 0;
    for (const auto& c : cases) {
        INFO("case: " << c.name);
        CHECK(gpt2().encode_ids(c.bytes) == c.ids);
        ill_formed += c.name.rfind("invalid utf-8", 0) == 0;
    }
    CHECK(ill_formed >= 20);  // the file must keep its ill-formed UTF-8 cases
}

TEST_CASE("gpt2 decode(encode(s)) gives back the exact bytes of every golden string", "[bpe]") {
    for (const auto& c : golden_cases()) {
        INFO("case: " << c.name);
        CHECK(gpt2().decode(gpt2().encode_ids(c.bytes)) == c.bytes);
    }
}

TEST_CASE("gpt2 encode() fills tokens with each id's display form", "[bpe]") {
    const attn::Tokenized t = gpt2().encode("Hello, world");
    CHECK(t.ids == std::vector<int64_t>{15496, 11, 995});
    CHECK(t.tokens == std::vector<std::string>{"Hello", ",", " world"});
}

TEST_CASE("gpt2 <|endoftext|> is the one special token and decodes to its text", "[bpe]") {
    const auto ids = gpt2().encode_ids("a<|endoftext|>b");
    REQUIRE(ids == std::vector<int64_t>{64, 50256, 65});
    CHECK(gpt2().is_special(50256));
    CHECK_FALSE(gpt2().is_special(64));
    CHECK(gpt2().token_display(50256) == "<|endoftext|>");
    CHECK(gpt2().vocab_size() == 50257);
}

TEST_CASE("gpt2 spans give each token's bytes and words group a word's sub-word pieces", "[bpe]") {
    const std::string text = "In the sunlit terraces of someunknownPlace.";
    const attn::Gpt2Encoding e = gpt2().encode_with_spans(text);
    const auto& ids = e.tokenized.ids;
    REQUIRE(e.spans.size() == ids.size());
    REQUIRE(e.words.size() == ids.size());
    std::size_t pos = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        CHECK(e.spans[i].begin == pos);
        CHECK(text.substr(e.spans[i].begin, e.spans[i].end - e.spans[i].begin) == gpt2().token_bytes(ids[i]));
        pos = e.spans[i].end;
    }
    CHECK(pos == text.size());
    // " someunknownPlace" is one word cut into " some", "unknown", "Place".
    const std::vector<int64_t> expected{818, 262, 4252, 18250, 8812, 2114, 286, 617, 34680, 27271, 13};
    REQUIRE(ids == expected);
    const std::vector<std::size_t> words{0, 1, 2, 2, 3, 3, 4, 5, 5, 5, 6};
    CHECK(e.words == words);
}

TEST_CASE("gpt2 spans of a text with <|endoftext|> and ill-formed bytes tile the text", "[bpe]") {
    const std::string text = "caf\xe9 <|endoftext|>\xf0\x9f\x98\x80!";
    const attn::Gpt2Encoding e = gpt2().encode_with_spans(text);
    std::string joined;
    for (std::size_t i = 0; i < e.spans.size(); ++i) {
        CHECK(e.spans[i].begin == joined.size());
        joined += text.substr(e.spans[i].begin, e.spans[i].end - e.spans[i].begin);
    }
    CHECK(joined == text);
}

TEST_CASE("gpt2 token display writes bytes that are not a whole character as hex escapes", "[bpe]") {
    const auto lone = gpt2().encode_ids("\xe2");
    REQUIRE(lone.size() == 1);
    CHECK(gpt2().token_display(lone[0]) == "\\xe2");
    // A whole character inside a token is shown as itself.
    const auto cafe = gpt2().encode("caf\xc3\xa9");
    std::string shown;
    for (const auto& t : cafe.tokens) shown += t;
    CHECK(shown == "caf\xc3\xa9");
    // "😀" is split into byte tokens that are each part of the character.
    const auto smile = gpt2().encode("\xf0\x9f\x98\x80");
    REQUIRE(smile.ids.size() > 1);
    for (const auto& t : smile.tokens) CHECK(t.find("\\x") != std::string::npos);
}

TEST_CASE("gpt2 decode rejects ids outside the vocabulary", "[bpe]") {
    CHECK_THROWS_AS(gpt2().decode({50257}), attn::TokenizeError);
    CHECK_THROWS_AS(gpt2().decode({-1}), attn::TokenizeError);
    CHECK_THROWS_WITH(gpt2().decode({1, 99999}), Catch::Contains("99999"));
}

TEST_CASE("gpt2 loading from a directory without encoder.json names the missing file", "[bpe]") {
    CHECK_THROWS_WITH(attn::Gpt2Tokenizer("/nonexistent/gpt2"), Catch::Contains("/nonexistent/gpt2/encoder.json"));
}

TEST_CASE("gpt2 loads from an explicit vocabulary directory", "[bpe]") {
    const attn::Gpt2Tokenizer t(attn::data_path("gpt2"));
    CHECK(t.encode_ids("Hello") == std::vector<int64_t>{15496});
}

TEST_CASE("gpt2 vocab.bpe's merges agree with encoder.json's ids", "[bpe]") {
    // Merge i of vocab.bpe makes token 256 + i: the assumption that lets the tokenizer use
    // a token's id as its merge rank, as tiktoken does.
    std::ifstream in(attn::data_path("gpt2/vocab.bpe"));
    REQUIRE(in);
    const auto spelled = byte_spellings();
    std::string line;
    std::getline(in, line);  // "#version: 0.2"
    int64_t id = 256;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto space = line.find(' ');
        REQUIRE(space != std::string::npos);
        const std::string merged = unspell(line.substr(0, space), spelled) + unspell(line.substr(space + 1), spelled);
        if (gpt2().token_bytes(id) != merged) FAIL("merge for id " << id << " disagrees: " << line);
        ++id;
    }
    CHECK(id == 50256);
}

TEST_CASE("gpt2 encodes a 256 KiB run of letters (one piece) losslessly", "[bpe]") {
    // How fast is bench/bpe_bench.cpp's BM_Gpt2EncodeOnePiece (quadratic merging would
    // take minutes there, a heap of pairs takes ~0.1 s).
    const std::string text(256 << 10, 'x');
    const auto ids = gpt2().encode_ids(text);
    CHECK(gpt2().decode(ids) == text);
}
