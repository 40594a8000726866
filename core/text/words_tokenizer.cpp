#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "text/tokenizer.h"

namespace attn {

std::vector<std::string> WordsTokenizer::split(const std::string& text) {
    std::string no_commas;
    for (char c : text)
        if (c != ',') no_commas += c;
    std::istringstream in(no_commas);  // Python's str.split(): runs of whitespace
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

WordsTokenizer::WordsTokenizer(const std::vector<std::string>& texts) {
    for (const std::string& t : texts)
        for (std::string& w : split(t)) vocab_.push_back(std::move(w));
    // Byte order of UTF-8 is code point order: the same as Python's sorted().
    std::sort(vocab_.begin(), vocab_.end());
    vocab_.erase(std::unique(vocab_.begin(), vocab_.end()), vocab_.end());
}

Tokenized WordsTokenizer::encode(const std::string& text) const {
    Tokenized out;
    for (std::string& w : split(text)) {
        const auto it = std::lower_bound(vocab_.begin(), vocab_.end(), w);
        if (it == vocab_.end() || *it != w) throw TokenizeError("unknown word '" + w + "'");
        out.ids.push_back(it - vocab_.begin());
        out.tokens.push_back(std::move(w));
    }
    return out;
}

}  // namespace attn
