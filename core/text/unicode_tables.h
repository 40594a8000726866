#pragma once
// Code point classes used by GPT-2's pre-tokenisation regex. The table itself is generated
// (core/text/unicode_tables.cpp, by tests/bpe/gen_unicode_tables.js) so that it matches the
// regex engine js-tiktoken runs on.
#include <cstddef>
#include <cstdint>

namespace attn::unicode {

enum class CodePointClass : std::uint8_t {
    kOther,   // [^\s\p{L}\p{N}]: punctuation, symbols, marks, unassigned, invalid bytes
    kLetter,  // \p{L}
    kNumber,  // \p{N}
    kSpace,   // JavaScript's \s
};

struct CodePointRange {
    char32_t first;
    char32_t last;  // inclusive
    CodePointClass cls;
};

// Sorted, non-overlapping; code points in no range are kOther.
extern const CodePointRange kCodePointRanges[];
extern const std::size_t kCodePointRangeCount;

}  // namespace attn::unicode
