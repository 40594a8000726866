#pragma once
// GPT-2's pre-tokenisation: the text is cut into pieces ("words") by the regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// before byte-pair merging runs inside each piece. This is a hand-written scanner with the
// same leftmost-first semantics as that regex under JavaScript's `u` flag (js-tiktoken).
//
// The text is UTF-8 bytes. A byte that does not belong to a well-formed UTF-8 sequence
// (stray continuation byte, truncated or overlong sequence, encoded surrogate, > U+10FFFF)
// counts as one character of class kOther, so it joins punctuation runs and is then
// byte-pair encoded as the raw byte it is. That keeps every input encodable and
// decode(encode(s)) == s byte for byte.
#include <cstddef>
#include <string_view>

#include "text/unicode_tables.h"

namespace attn {

unicode::CodePointClass classify_code_point(char32_t cp);

// End (exclusive byte offset into `text`) of the piece that starts at byte `begin`;
// begin < text.size(). The caller cuts the text at special tokens first: the regex's
// lookahead sees only the text between two special tokens.
std::size_t gpt2_piece_end(std::string_view text, std::size_t begin);

}  // namespace attn
