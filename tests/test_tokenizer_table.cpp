// The tokenizer table (core/text/tokenizer_table.h): --tokenizer's choices are its rows,
// a path is a tokenizer.json's row, each row encodes as its tokenizer does, and the
// emitted program describes the vocabulary of the tokenizer the run used.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "output/pytorch_emit.h"
#include "run/pipeline.h"
#include "settings/setting_table.h"
#include "text/tokenizer_table.h"

namespace {

const attn::SettingRow& tokenizer_setting() {
    for (const attn::SettingRow& row : attn::setting_rows())
        if (std::string(row.key) == "tokenizer") return row;
    throw std::logic_error("no tokenizer row");
}

// A byte-level BPE tokenizer.json of 95 tokens: '!'..'~', a space, "he".
std::string write_tokenizer_json(const std::string& dir) {
    std::filesystem::create_directories(dir);
    std::string vocab;
    for (int c = 33; c < 127; ++c) {
        const char ch = static_cast<char>(c);
        const std::string key = ch == '"' ? "\\\"" : ch == '\\' ? "\\\\" : std::string(1, ch);
        vocab += "\"" + key + "\": " + std::to_string(c - 33) + ", ";
    }
    vocab += "\"\\u0120\": 94, \"he\": 95";
    const std::string path = dir + "/tokenizer.json";
    std::ofstream(path) << R"({"added_tokens": [], "normalizer": null, "pre_tokenizer": {"type": "ByteLevel",
        "add_prefix_space": false, "trim_offsets": true, "use_regex": true}, "post_processor": null,
        "decoder": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {)"
                        << vocab << R"(}, "merges": [["h", "e"]]}})";
    return path;
}

}  // namespace

TEST_CASE("the --tokenizer choices are the table's named rows, in the menu's order", "[unit][tokenizer]") {
    CHECK(attn::tokenizer_names() == std::vector<std::string>{"words", "simple", "gpt2"});
    CHECK(tokenizer_setting().choices == attn::tokenizer_names());
    for (const std::string& name : attn::tokenizer_names()) {
        const attn::TokenizerRow* row = attn::find_tokenizer(name);
        REQUIRE(row != nullptr);
        CHECK(row->name == name);
        CHECK(*row->label);  // a radio button in the app
    }
}

TEST_CASE("a path ending in tokenizer.json is the tokenizer.json row, anything else is refused in one line",
          "[unit][tokenizer]") {
    const attn::TokenizerRow* json = attn::find_tokenizer("models/x/tokenizer.json");
    REQUIRE(json != nullptr);
    CHECK(json->kind == attn::TokenizerKind::TokenizerJson);
    CHECK(&attn::tokenizer_row(attn::TokenizerKind::TokenizerJson) == json);
    CHECK(attn::find_tokenizer("bert") == nullptr);
    CHECK(attn::find_tokenizer("tokenizer.jsonx") == nullptr);
    CHECK_THROWS_WITH(attn::tokenizer_row("bert"), "unknown tokenizer 'bert' (words, simple, gpt2, or a PATH/tokenizer.json)");
}

TEST_CASE("each row encodes as its tokenizer: the vocabulary sizes and marks", "[unit][tokenizer]") {
    const std::vector<std::string> texts = {"Your journey starts, with one step", "one step"};
    const attn::Encoded words = attn::tokenizer_row("words").encode("words", std::nullopt, texts);
    CHECK(words.vocab_size == 50000);
    CHECK(words.texts.at(0).tokens == std::vector<std::string>{"Your", "journey", "starts", "with", "one", "step"});
    CHECK(words.texts.at(1).ids == std::vector<int64_t>{words.texts[0].ids[4], words.texts[0].ids[5]});

    const attn::Encoded simple = attn::tokenizer_row("simple").encode("simple", std::nullopt, {"Hello, world. Hello"});
    CHECK(simple.vocab_size == 4 + 2);  // , . Hello world, then <|endoftext|> and <|unk|>
    CHECK(attn::tokenizer_row("simple").marks_unknown);
    CHECK(attn::tokenizer_row("simple").takes_corpus);
    CHECK_FALSE(attn::tokenizer_row("gpt2").takes_corpus);

    const attn::Encoded gpt2 = attn::tokenizer_row("gpt2").encode("gpt2", std::nullopt, {"Hello world"});
    CHECK(gpt2.vocab_size == 50257);
    CHECK(gpt2.texts.at(0).ids == std::vector<int64_t>{15496, 995});  // tiktoken's "gpt2"
    CHECK(gpt2.vocab_size == attn::tokenizer_row("gpt2").vocab_size);

    const std::string dir = std::filesystem::temp_directory_path() / ("attnscope-table-" + std::to_string(::getpid()));
    const std::string path = write_tokenizer_json(dir);
    const attn::Encoded hf = attn::tokenizer_row(path).encode(path, std::nullopt, {"he he"});
    CHECK(hf.vocab_size == 96);
    CHECK(hf.texts.at(0).ids == std::vector<int64_t>{95, 94, 95});
    std::filesystem::remove_all(dir);
}

TEST_CASE("only the words tokenizer takes the book's vectors, and a corpus only the simple one", "[unit][tokenizer]") {
    for (const attn::TokenizerRow& row : attn::tokenizer_rows())
        CHECK(row.book_vectors == (row.kind == attn::TokenizerKind::Words));
    attn::Settings s;
    s.tokenizer = "gpt2";
    s.corpus_file = "corpus.txt";
    CHECK_THROWS_WITH(attn::embed_texts(s), "a corpus file is only used by the simple tokenizer");
}

TEST_CASE("the emitted program names the vocabulary of the tokenizer the run used", "[unit][tokenizer][pytorch]") {
    const std::string dir = std::filesystem::temp_directory_path() / ("attnscope-emit-" + std::to_string(::getpid()));
    const std::string path = write_tokenizer_json(dir);
    attn::Settings s;
    s.text = "he he";
    s.tokenizer = path;
    s.d_in = 4;
    s.attention.d_out = 2;
    const std::string py = attn::emit_pytorch(s, attn::compute(s));
    CHECK(py.find("vocab_size = 96  # the tokenizer.json's vocabulary") != std::string::npos);
    CHECK(py.find("# The Hugging Face tokenizer " + path + ": tokenizers'") != std::string::npos);
    CHECK(py.find("SimpleTokenizerV2") == std::string::npos);
    s.tokenizer = "gpt2";
    CHECK(attn::emit_pytorch(s, attn::compute(s)).find("# GPT-2's vocabulary") != std::string::npos);
    std::filesystem::remove_all(dir);
}
