#include "text/gpt2_pretokenizer.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "text/utf8.h"

namespace attn {

using unicode::CodePointClass;

namespace {

// ASCII is most of the text we see: classify it from a table, not a binary search.
constexpr std::array<CodePointClass, 128> make_ascii_classes() {
    std::array<CodePointClass, 128> t{};
    for (int c = 0; c < 128; ++c) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) t[c] = CodePointClass::kLetter;
        else if (c >= '0' && c <= '9') t[c] = CodePointClass::kNumber;
        else if (c == ' ' || (c >= '\t' && c <= '\r')) t[c] = CodePointClass::kSpace;
        else t[c] = CodePointClass::kOther;
    }
    return t;
}
constexpr std::array<CodePointClass, 128> kAsciiClasses = make_ascii_classes();

struct Char {
    CodePointClass cls;
    std::size_t len;  // bytes
};

// One character at byte i (i < n); an ill-formed byte is a 1-byte kOther character.
Char char_at(std::string_view text, std::size_t i) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    if (b0 < 0x80) return {kAsciiClasses[b0], 1};
    const Utf8Char c = decode_utf8_char(text, i);
    if (c.len == 0) return {CodePointClass::kOther, 1};
    return {classify_code_point(c.cp), c.len};
}

}  // namespace

CodePointClass classify_code_point(char32_t cp) {
    if (cp < 128) return kAsciiClasses[cp];
    const unicode::CodePointRange* begin = unicode::kCodePointRanges;
    const unicode::CodePointRange* end = begin + unicode::kCodePointRangeCount;
    // First range whose last code point is >= cp.
    const auto* it = std::lower_bound(begin, end, cp, [](const unicode::CodePointRange& r, char32_t c) {
        return r.last < c;
    });
    return (it != end && it->first <= cp) ? it->cls : CodePointClass::kOther;
}

std::size_t gpt2_piece_end(std::string_view text, std::size_t begin) {
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t i = begin;

    // 's|'t|'re|'ve|'m|'ll|'d come first in the alternation, so they win at an apostrophe.
    if (s[i] == '\'' && i + 1 < n) {
        const unsigned char c1 = s[i + 1];
        if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd') return i + 2;
        if (i + 2 < n) {
            const unsigned char c2 = s[i + 2];
            if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l')) return i + 3;
        }
    }

    // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: one optional U+0020, then a run of
    // one class. A space followed by whitespace is left to the whitespace rules below.
    CodePointClass run = char_at(text, i).cls;
    if (s[i] == ' ' && i + 1 < n) {
        const CodePointClass next = char_at(text, i + 1).cls;
        if (next != CodePointClass::kSpace) {
            run = next;
            ++i;
        }
    }
    if (run != CodePointClass::kSpace) {
        while (i < n) {
            const Char c = char_at(text, i);
            if (c.cls != run) break;
            i += c.len;
        }
        return i;
    }

    // `\s+(?!\S)|\s+`: a whitespace run, less its last character when a non-space follows
    // (that character then prefixes the next word, as in " world"), unless the run is a
    // single character.
    std::size_t last_start = i;
    while (i < n) {
        const Char c = char_at(text, i);
        if (c.cls != CodePointClass::kSpace) break;
        last_start = i;
        i += c.len;
    }
    if (i == n || last_start == begin) return i;
    return last_start;
}

}  // namespace attn
