#pragma once
// GPT-2's bytes_to_unicode, as Hugging Face's ByteLevel pre-tokenizer and decoder use it:
// every byte is spelled as one printable code point (printable Latin-1 bytes as
// themselves, the other 68 bytes as U+0100.. in order), so that a byte-level BPE
// vocabulary is a vocabulary of strings.
#include <optional>
#include <string>
#include <string_view>

namespace attn {

// The byte-level spelling of `bytes` (UTF-8, one code point per byte).
std::string to_byte_level(std::string_view bytes);

// The bytes a byte-level string spells; nullopt if a character of it spells no byte.
std::optional<std::string> from_byte_level(std::string_view text);

}  // namespace attn
