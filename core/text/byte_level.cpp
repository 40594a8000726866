#include "text/byte_level.h"

#include <array>

#include "text/utf8.h"

namespace attn {

namespace {

bool printable(int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); }

struct Tables {
    std::array<std::string, 256> spelling;  // byte -> its code point in UTF-8
    std::array<int, 324> byte_of;           // code point -> byte, -1 if it spells none
};

std::string utf8_of(char32_t cp) {
    std::string s;
    if (cp < 0x80) {
        s += static_cast<char>(cp);
    } else {  // below U+0800: bytes_to_unicode's code points end at U+0143
        s += static_cast<char>(0xC0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return s;
}

const Tables& tables() {
    static const Tables t = [] {
        Tables t;
        t.byte_of.fill(-1);
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const char32_t cp = printable(b) ? static_cast<char32_t>(b) : next++;
            t.spelling[b] = utf8_of(cp);
            t.byte_of[cp] = b;
        }
        return t;
    }();
    return t;
}

}  // namespace

std::string to_byte_level(std::string_view bytes) {
    const Tables& t = tables();
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char c : bytes) out += t.spelling[static_cast<unsigned char>(c)];
    return out;
}

std::optional<std::string> from_byte_level(std::string_view text) {
    const Tables& t = tables();
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Char c = decode_utf8_char(text, i);
        if (c.len == 0 || c.cp >= t.byte_of.size() || t.byte_of[c.cp] < 0) return std::nullopt;
        out += static_cast<char>(t.byte_of[c.cp]);
        i += c.len;
    }
    return out;
}

}  // namespace attn
