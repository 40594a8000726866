// Seed 004's `words` tokenizer: input = TEXT [\0 TEXT2]. The vocabulary of TEXT alone must
// encode TEXT; that of both texts must encode both; and both go through the pipeline (TEXT2
// as cross-attention's keys and values), as the CLI's --text/--text2 would.
#include <algorithm>

#include "fuzz_common.h"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t cut = input.find('\0');
    const std::string a = input.substr(0, cut);
    const std::string b = cut == std::string::npos ? std::string() : input.substr(cut + 1);

    const std::vector<std::string> words = WordsTokenizer::split(a);
    for (const std::string& w : words)
        fuzz::check(!w.empty() && w.find(',') == std::string::npos, "split gives non-empty words without commas");

    const WordsTokenizer own({a});
    const auto& vocab = own.vocabulary();
    fuzz::check(std::adjacent_find(vocab.begin(), vocab.end(), std::greater_equal<>()) == vocab.end(),
                "vocabulary sorted and unique");
    const Tokenized t = own.encode(a);  // every word of the texts is known: no refusal allowed
    fuzz::check(t.tokens == words, "encode(text).tokens == split(text)");
    fuzz::check(t.ids.size() == t.tokens.size(), "one id per token");
    for (size_t i = 0; i < t.ids.size(); ++i)
        fuzz::check(t.ids[i] >= 0 && t.ids[i] < static_cast<int64_t>(vocab.size()) && vocab[t.ids[i]] == t.tokens[i],
                    "tokens[i] == vocabulary[ids[i]]");

    const WordsTokenizer both({a, b});
    both.encode(a);
    both.encode(b);
    fuzz::refusals_are_fine([&] { own.encode(b); });  // unknown words: TokenizeError

    Settings s;
    s.text = a;
    if (!b.empty()) {
        s.text2 = b;
        s.attention.variant = Variant::Cross;
    }
    fuzz::refusals_are_fine([&] { compute(s); });
    return 0;
}
