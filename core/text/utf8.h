#pragma once
// Strict UTF-8 decoding (Unicode's Table 3-7: no overlong forms, no surrogates, nothing
// above U+10FFFF), shared by the tokenizers that must say what to do with ill-formed bytes.
#include <cstddef>
#include <string>
#include <string_view>

namespace attn {

struct Utf8Char {
    char32_t cp;
    std::size_t len;  // bytes; 0 when the byte does not start a well-formed character
};

// The character starting at byte i (i < text.size()).
Utf8Char decode_utf8_char(std::string_view text, std::size_t i);

bool is_valid_utf8(std::string_view text);

// Bytes as a reader should see them: whole characters as themselves, each byte outside a
// well-formed character as \xNN (a token may hold the first bytes of a character only).
std::string readable_bytes(std::string_view bytes);

}  // namespace attn
