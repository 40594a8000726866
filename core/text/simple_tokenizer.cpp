#include "text/simple_tokenizer.h"

#include <algorithm>
#include <filesystem>

#include "base/file_io.h"
#include "text/utf8.h"

namespace attn {

namespace {

// Python's \s for str patterns (the characters whose str.isspace() is true).
bool is_python_space(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
           c == 0x3000;
}

// The one-character separators of the book's split regex, and those decode glues to the
// word before them: SimpleTokenizerV2's re.sub(r'\s+([,.:;?!"()\'])', r'\1', text)
// (V1's class lacked : and ;).
constexpr std::string_view kSplitPunctuation = ",.:;?_!\"()'";
constexpr std::string_view kGluedPunctuation = ",.:;?!\"()'";

}  // namespace

std::vector<std::string> SimpleTokenizerV2::split(std::string_view text) {
    // Every whitespace character is a separator, so items never hold whitespace and the
    // book's strip() only ever removes whole whitespace separators.
    std::vector<std::string> out;
    std::string word;
    auto flush = [&] {
        if (!word.empty()) out.push_back(std::move(word));
        word.clear();
    };
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (kSplitPunctuation.find(c) != std::string_view::npos) {
            flush();
            out.emplace_back(1, c);
            ++i;
        } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
            flush();
            out.emplace_back("--");
            i += 2;
        } else {
            const Utf8Char u = decode_utf8_char(text, i);
            const std::size_t len = u.len == 0 ? 1 : u.len;  // a stray byte is part of a word
            if (u.len != 0 && is_python_space(u.cp)) flush();
            else word.append(text.substr(i, len));
            i += len;
        }
    }
    flush();
    return out;
}

SimpleTokenizerV2::SimpleTokenizerV2(std::string_view corpus) {
    vocab_ = split(corpus);
    if (vocab_.empty()) throw TokenizeError("the corpus has no words to build a vocabulary from");
    // Byte order of UTF-8 is code point order, which is what Python's sorted() uses.
    std::sort(vocab_.begin(), vocab_.end());
    vocab_.erase(std::unique(vocab_.begin(), vocab_.end()), vocab_.end());
    vocab_.erase(std::remove_if(vocab_.begin(), vocab_.end(),
                                [](const std::string& w) { return w == kEndOfText || w == kUnknown; }),
                 vocab_.end());
    vocab_.emplace_back(kEndOfText);
    vocab_.emplace_back(kUnknown);
}

std::string SimpleTokenizerV2::load_corpus(const std::string& path) {
    std::string text;
    try {
        text = read_file_capped(path, kMaxCorpusBytes, "a corpus");
    } catch (const FileError& e) {
        std::error_code ec;
        if (e.problem == FileError::Problem::Missing) throw TokenizeError("corpus file not found: " + path);
        if (std::filesystem::is_directory(path, ec))
            throw TokenizeError("corpus path is a directory, not a file: " + path);
        if (e.problem == FileError::Problem::TooLarge)
            throw TokenizeError("corpus file is too large (" + std::to_string(e.size >> 20) + " MB, limit " +
                                std::to_string(kMaxCorpusBytes >> 20) + " MB): " + path);
        throw TokenizeError("cannot read corpus file: " + path);
    }
    if (text.empty()) throw TokenizeError("corpus file is empty: " + path);
    if (const auto nul = text.find('\0'); nul != std::string::npos)
        throw TokenizeError("corpus file looks binary (NUL byte at offset " + std::to_string(nul) + "): " + path);
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = decode_utf8_char(text, i).len;
        if (len == 0)
            throw TokenizeError("corpus file is not UTF-8 text (bad byte at offset " + std::to_string(i) + "): " + path);
        i += len;
    }
    return text;
}

SimpleTokenizerV2 SimpleTokenizerV2::from_corpus_file(const std::string& path) {
    return SimpleTokenizerV2(load_corpus(path));
}

Tokenized SimpleTokenizerV2::encode(std::string_view text) const {
    Tokenized out;
    // The specials sit after the sorted words, so the words are searched alone.
    const auto words_end = vocab_.end() - 2;
    for (std::string& w : split(text)) {
        int64_t id;
        const auto it = std::lower_bound(vocab_.begin(), words_end, w);
        if (it != words_end && *it == w) id = it - vocab_.begin();
        else if (w == kEndOfText) id = end_of_text_id();
        else id = unknown_id();  // <|unk|> itself maps here too
        out.ids.push_back(id);
        out.tokens.push_back(vocab_[id]);
    }
    return out;
}

std::string SimpleTokenizerV2::decode(const std::vector<int64_t>& ids) const {
    std::string text;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= vocab_size())
            throw TokenizeError("token id " + std::to_string(ids[i]) + " is outside the vocabulary (0.." +
                                std::to_string(vocab_size() - 1) + ")");
        const std::string& token = vocab_[ids[i]];
        // Tokens hold no whitespace, so the book's \s+ before punctuation is exactly the
        // one joining space, and such punctuation is always a one-character token.
        const bool glued = token.size() == 1 && kGluedPunctuation.find(token[0]) != std::string_view::npos;
        if (i > 0 && !glued) text += ' ';
        text += token;
    }
    return text;
}

}  // namespace attn
