// Chapter 2's SimpleTokenizerV2 (core/text/simple_tokenizer.h). Expected ids were computed by the
// book's listing (re.split / sorted(set(...)) / re.sub) in Python 3 on the same corpus.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "text/simple_tokenizer.h"

namespace {

using Words = std::vector<std::string>;
using Ids = std::vector<int64_t>;

// Passages of "The Verdict" quoted in chapter 2, and words of the book's second sentence.
const std::string kCorpus =
    "I HAD always thought Jack Gisburn rather a cheap genius--though a good fellow enough--so it was no "
    "great surprise to me to hear that, in the height of his glory, he had dropped his painting, married a "
    "rich widow, and established himself in a villa on the Riviera.\n"
    "\"It's the last he painted, you know,\"\nMrs. Gisburn said with pardonable pride.\n"
    "Do you like tea? In the sunlit terraces of the house.";

const std::string kBookText = "Hello, do you like tea? <|endoftext|> In the sunlit terraces of the palace.";

// A scratch file that is removed when the test ends.
struct TempFile {
    std::filesystem::path path;
    explicit TempFile(const std::string& name)
        : path(std::filesystem::temp_directory_path() / ("attnscope_simple_" + name)) {}
    ~TempFile() { std::filesystem::remove(path); }
    void write(const std::string& bytes) const { std::ofstream(path, std::ios::binary) << bytes; }
};

}  // namespace

TEST_CASE("simple split gives the book's result for its regex example", "[simple]") {
    CHECK(attn::SimpleTokenizerV2::split("Hello, world. Is this-- a test?") ==
          Words{"Hello", ",", "world", ".", "Is", "this", "--", "a", "test", "?"});
}

TEST_CASE("simple split of the verdict's opening gives the book's first 30 tokens", "[simple]") {
    const Words expected{"I",      "HAD",  "always", "thought", "Jack",     "Gisburn", "rather", "a",
                         "cheap",  "genius", "--",   "though",  "a",        "good",    "fellow", "enough",
                         "--",     "so",   "it",     "was",     "no",       "great",   "surprise", "to",
                         "me",     "to",   "hear",   "that",    ",",        "in"};
    const Words words = attn::SimpleTokenizerV2::split(kCorpus);
    REQUIRE(words.size() >= 30);
    CHECK(Words(words.begin(), words.begin() + 30) == expected);
}

TEST_CASE("simple split treats every whitespace as a separator and only a double dash as a token", "[simple]") {
    CHECK(attn::SimpleTokenizerV2::split("a\tb\nc\r\nd\xc2\xa0" "e\xe3\x80\x80" "f") == Words{"a", "b", "c", "d", "e", "f"});
    CHECK(attn::SimpleTokenizerV2::split("well-known a---b") == Words{"well-known", "a", "--", "-b"});
    CHECK(attn::SimpleTokenizerV2::split("x:y;z_w(v)") == Words{"x", ":", "y", ";", "z", "_", "w", "(", "v", ")"});
    CHECK(attn::SimpleTokenizerV2::split("  \n\t ").empty());
}

TEST_CASE("simple vocabulary is the sorted unique tokens, then <|endoftext|> and <|unk|>", "[simple]") {
    const attn::SimpleTokenizerV2 tok(kCorpus);
    const auto& v = tok.vocabulary();
    REQUIRE(v.size() == 69);
    CHECK(Words(v.begin(), v.begin() + 8) == Words{"\"", "'", ",", "--", ".", "?", "Do", "Gisburn"});
    CHECK(v[67] == "<|endoftext|>");
    CHECK(v[68] == "<|unk|>");
    CHECK(tok.end_of_text_id() == 67);
    CHECK(tok.unknown_id() == 68);
    CHECK(std::is_sorted(v.begin(), v.end() - 2));
}

TEST_CASE("simple encodes the book's joined text like the book's Python, unknown words as <|unk|>", "[simple]") {
    const attn::SimpleTokenizerV2 tok(kCorpus);
    const attn::Tokenized t = tok.encode(kBookText);
    CHECK(t.ids == Ids{68, 2, 68, 66, 38, 55, 5, 67, 10, 58, 53, 56, 42, 58, 68, 4});
    CHECK(t.tokens.front() == "<|unk|>");  // "Hello" is not in the corpus
    CHECK(t.tokens[7] == "<|endoftext|>");
    CHECK(tok.decode(t.ids) == "<|unk|>, <|unk|> you like tea? <|endoftext|> In the sunlit terraces of the <|unk|>.");
}

TEST_CASE("simple round-trips text whose words are all in the vocabulary", "[simple]") {
    const attn::SimpleTokenizerV2 tok(kBookText);  // vocabulary from the text itself
    const attn::Tokenized t = tok.encode(kBookText);
    for (const int64_t id : t.ids) CHECK(id != tok.unknown_id());
    CHECK(tok.decode(t.ids) == kBookText);
}

TEST_CASE("simple maps every unknown word, and a typed <|unk|>, to the <|unk|> id", "[simple]") {
    const attn::SimpleTokenizerV2 tok("the cat sat");
    CHECK(tok.encode("the dog sat <|unk|>").ids == Ids{2, 4, 1, 4});
    CHECK(tok.encode("<|endoftext|> the").ids == Ids{3, 2});
    CHECK(tok.encode("").ids.empty());
}

TEST_CASE("simple decode removes the space before punctuation, quotes and brackets as V2 does", "[simple]") {
    const std::string passage = "\"It's the last he painted, you know,\"\nMrs. Gisburn said with pardonable pride.";
    const attn::SimpleTokenizerV2 tok(kCorpus);
    // The book's decode glues a quote to the word before it, so the text does not come back.
    CHECK(tok.decode(tok.encode(passage).ids) ==
          "\" It' s the last he painted, you know,\" Mrs. Gisburn said with pardonable pride.");
    const attn::SimpleTokenizerV2 colon("a: b; c ( d ) e!");
    CHECK(colon.decode(colon.encode("a: b; c ( d ) e!").ids) == "a: b; c( d) e!");
}

TEST_CASE("simple decode rejects ids outside the vocabulary", "[simple]") {
    const attn::SimpleTokenizerV2 tok("the cat sat");
    CHECK_THROWS_WITH(tok.decode({0, 5}), Catch::Contains("5"));
    CHECK_THROWS_AS(tok.decode({-1}), attn::TokenizeError);
}

TEST_CASE("simple refuses a corpus without words", "[simple]") {
    CHECK_THROWS_AS(attn::SimpleTokenizerV2(""), attn::TokenizeError);
    CHECK_THROWS_AS(attn::SimpleTokenizerV2(" \n\t "), attn::TokenizeError);
}

TEST_CASE("simple loads a corpus file and builds its vocabulary", "[simple]") {
    const TempFile file("good.txt");
    file.write(kCorpus);
    CHECK(attn::SimpleTokenizerV2::load_corpus(file.path.string()) == kCorpus);
    CHECK(attn::SimpleTokenizerV2::from_corpus_file(file.path.string()).vocab_size() == 69);
}

TEST_CASE("simple corpus loading names the problem: missing, directory, empty, binary, not UTF-8, huge",
          "[simple]") {
    using attn::SimpleTokenizerV2;
    CHECK_THROWS_WITH(SimpleTokenizerV2::load_corpus("/nonexistent/corpus.txt"), Catch::Contains("not found"));
    CHECK_THROWS_WITH(SimpleTokenizerV2::load_corpus(std::filesystem::temp_directory_path().string()),
                      Catch::Contains("directory"));

    const TempFile empty("empty.txt");
    empty.write("");
    CHECK_THROWS_WITH(SimpleTokenizerV2::load_corpus(empty.path.string()), Catch::Contains("empty"));

    const TempFile binary("binary.txt");
    binary.write(std::string("abc\0def", 7));
    CHECK_THROWS_WITH(SimpleTokenizerV2::load_corpus(binary.path.string()), Catch::Contains("binary"));

    const TempFile latin1("latin1.txt");
    latin1.write("caf\xe9 au lait");
    CHECK_THROWS_WITH(SimpleTokenizerV2::load_corpus(latin1.path.string()),
                      Catch::Contains("not UTF-8") && Catch::Contains("offset 3"));

    const TempFile huge("huge.txt");
    huge.write("x");
    std::filesystem::resize_file(huge.path, SimpleTokenizerV2::kMaxCorpusBytes + 1);  // sparse: no disk used
    CHECK_THROWS_WITH(SimpleTokenizerV2::load_corpus(huge.path.string()), Catch::Contains("too large"));
}
