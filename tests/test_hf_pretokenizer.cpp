// A tokenizer.json's pre-tokenizer steps (core/text/hf_pretokenizer.h) run by Oniguruma:
// Split with a \p{L} class under each behaviour and invert, ByteLevel's prefix space, and
// GPT-2's hand-written pre-tokenizer (gpt2_pretokenizer.h) against Oniguruma running the
// same regex on the same strings. Tagged [bpe]: the web build runs them too, Oniguruma
// compiled to WebAssembly.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "text/gpt2_pretokenizer.h"
#include "text/hf_pretokenizer.h"
#include "text/utf8.h"

using attn::PreTokenizerStep;
using attn::SplitBehavior;
using Pieces = std::vector<std::string>;

namespace {

PreTokenizerStep split(const std::string& regex, SplitBehavior behavior, bool invert = false) {
    PreTokenizerStep step;
    step.regex = std::make_shared<attn::OnigRegex>(regex);
    step.behavior = behavior;
    step.invert = invert;
    return step;
}

Pieces run(const PreTokenizerStep& step, const std::string& text) { return attn::pre_tokenize({step}, text); }

Pieces gpt2_fast_path(const std::string& text) {
    Pieces pieces;
    for (size_t at = 0; at < text.size();) {
        const size_t end = attn::gpt2_piece_end(text, at);
        pieces.push_back(text.substr(at, end - at));
        at = end;
    }
    return pieces;
}

}  // namespace

TEST_CASE("hf Split with a letters regex under each behaviour", "[bpe]") {
    const std::string text = "H\xc3\xa9llo, \xce\xbc\xce\xbf\xcf\x85 42!";  // Héllo, μου 42!
    const std::string letters = "\\p{L}+";
    CHECK(run(split(letters, SplitBehavior::Isolated), text) ==
          Pieces{"H\xc3\xa9llo", ", ", "\xce\xbc\xce\xbf\xcf\x85", " 42!"});
    CHECK(run(split(letters, SplitBehavior::Removed), text) == Pieces{", ", " 42!"});
    CHECK(run(split(letters, SplitBehavior::Removed, true), text) == Pieces{"H\xc3\xa9llo", "\xce\xbc\xce\xbf\xcf\x85"});
    CHECK(run(split(letters, SplitBehavior::MergedWithPrevious), text) ==
          Pieces{"H\xc3\xa9llo", ", \xce\xbc\xce\xbf\xcf\x85", " 42!"});
    CHECK(run(split(letters, SplitBehavior::MergedWithNext), text) ==
          Pieces{"H\xc3\xa9llo, ", "\xce\xbc\xce\xbf\xcf\x85 42!"});
    CHECK(run(split("\\p{L}", SplitBehavior::Contiguous), "ab, c") == Pieces{"ab", ", ", "c"});
    // Llama 3's contractions are case-insensitive: (?i:...) as Oniguruma reads it.
    CHECK(run(split("(?i:'s|'ll)|\\p{L}+", SplitBehavior::Isolated), "IT'S we'LL") ==
          Pieces{"IT", "'S", " ", "we", "'LL"});
    // \p{N}{1,3}: Llama 3 groups digits by three.
    CHECK(run(split("\\p{N}{1,3}", SplitBehavior::Isolated), "1234567") == Pieces{"123", "456", "7"});
}

TEST_CASE("hf Split with a literal String pattern and an empty-matching regex", "[bpe]") {
    PreTokenizerStep step;
    step.literal = "--";
    step.behavior = SplitBehavior::Isolated;
    CHECK(run(step, "a--b----c") == Pieces{"a", "--", "b", "--", "--", "c"});
    // x* matches empty everywhere: empty pieces are dropped, the text stays whole.
    CHECK(run(split("x*", SplitBehavior::Isolated), "abxxc") == Pieces{"a", "b", "xx", "c"});
}

TEST_CASE("hf ByteLevel adds a prefix space to each piece not starting with one", "[bpe]") {
    PreTokenizerStep step;
    step.kind = PreTokenizerStep::Kind::ByteLevel;
    step.add_prefix_space = true;
    CHECK(attn::pre_tokenize({step}, "hello") == Pieces{" hello"});
    CHECK(attn::pre_tokenize({step}, " hello") == Pieces{" hello"});
    step.regex = std::make_shared<attn::OnigRegex>(attn::kByteLevelPattern);
    CHECK(attn::pre_tokenize({step}, "hi there") == Pieces{" hi", " there"});
}

// The strings both engines see; they hold every class the regex tells apart (letters,
// numbers, other, whitespace) in scripts, next to each other and in runs.
const char* const kSharedStrings[] = {
    "Hello, world! It's 2024: we'll see.",
    "I'm you're they've she'd he'll 'S 'LL",
    "  leading   spaces and trailing   ",
    "line\nbreaks\n\n  indented\r\nwindows\ttabs\t\t",
    "1234567 3.14159 \xd9\xa3\xd9\xa4 \xe2\x85\xa7 x\xc2\xb2",  // Arabic-Indic digits, Ⅷ, x²
    "\xe4\xbd\xa0\xe5\xa5\xbd\xef\xbc\x8c\xe4\xb8\x96\xe7\x95\x8c\xef\xbc\x81",  // 你好，世界！
    "caf\xc3\xa9 na\xc3\xafve e\xcc\x81",                                        // é, ï, e + U+0301
    "emoji \xf0\x9f\xa4\x97\xf0\x9f\x9a\x80 \xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa9",
    "def f(x):\n    return x ** 2  # sq\n",
    "a\xc2\xa0" "b\xe2\x80\x83" "c\xe3\x80\x80" "d",  // no-break, em and ideographic spaces
    "$$$ %%% ^^^ ~~~ ``` <|endoftext|>",
    "\xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87",  // नमस्ते: marks are not \p{L}
    "   ",
    "x",
    "\n",
};

TEST_CASE("gpt2's hand-written pre-tokenizer splits as Oniguruma runs GPT-2's regex", "[bpe]") {
    const attn::OnigRegex regex(attn::kByteLevelPattern);
    for (const char* text : kSharedStrings) {
        INFO(text);
        Pieces onig;
        for (const attn::Utf8Match& m : regex.find_all(text)) onig.push_back(std::string(text).substr(m.begin, m.end - m.begin));
        CHECK(gpt2_fast_path(text) == onig);
    }
}

TEST_CASE("gpt2's hand-written pre-tokenizer and Oniguruma differ in whitespace", "[bpe]") {
    // The fast path follows JavaScript's \s (js-tiktoken): U+FEFF is one, U+0085 is not.
    // Oniguruma's \s is Unicode's White_Space: the other way round. (Their tables also
    // differ in letters newer than Oniguruma 6.9.8's Unicode data.) Hugging Face's
    // tokenizers runs Oniguruma 6.9.8, so a tokenizer.json's ByteLevel regex runs there too.
    const attn::OnigRegex regex(attn::kByteLevelPattern);
    const auto onig = [&](const std::string& text) {
        Pieces pieces;
        for (const attn::Utf8Match& m : regex.find_all(text)) pieces.push_back(text.substr(m.begin, m.end - m.begin));
        return pieces;
    };
    const std::string bom = "\xef\xbb\xbf", nel = "\xc2\x85";
    CHECK(onig("a" + bom + bom + "b") == Pieces{"a", bom + bom, "b"});  // U+FEFF: not \s, a run of "other"
    CHECK(gpt2_fast_path("a" + bom + bom + "b") == Pieces{"a", bom, bom, "b"});
    CHECK(onig("a" + nel + nel + "b") == Pieces{"a", nel, nel, "b"});  // U+0085: \s
    CHECK(gpt2_fast_path("a" + nel + nel + "b") == Pieces{"a", nel + nel, "b"});
}
