#include "text/utf8.h"

#include <cstdio>

namespace attn {

Utf8Char decode_utf8_char(std::string_view text, std::size_t i) {
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    const unsigned char b0 = s[i];
    if (b0 < 0x80) return {b0, 1};
    std::size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    char32_t cp;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
        cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        cp = b0 & 0x0F;
        if (b0 == 0xE0) lo = 0xA0;  // overlong
        if (b0 == 0xED) hi = 0x9F;  // surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        cp = b0 & 0x07;
        if (b0 == 0xF0) lo = 0x90;  // overlong
        if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
        return {0, 0};
    }
    if (i + len > n || s[i + 1] < lo || s[i + 1] > hi) return {0, 0};
    for (std::size_t k = 1; k < len; ++k) {
        if ((s[i + k] & 0xC0) != 0x80) return {0, 0};
        cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    return {cp, len};
}

std::string readable_bytes(std::string_view bytes) {
    std::string out;
    for (std::size_t i = 0; i < bytes.size();) {
        const std::size_t len = decode_utf8_char(bytes, i).len;
        if (len > 0) {
            out.append(bytes.substr(i, len));
            i += len;
        } else {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(bytes[i]));
            out += hex;
            ++i;
        }
    }
    return out;
}

bool is_valid_utf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = decode_utf8_char(text, i).len;
        if (len == 0) return false;
        i += len;
    }
    return true;
}

}  // namespace attn
