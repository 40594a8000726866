#pragma once
// Unicode's NFC quick check (UAX #15): a text that passes it is already in NFC, so the
// NFC normalizer leaves it unchanged. A text that fails it (decomposed accents, marks out
// of canonical order, compatibility singletons such as U+212B) would need the full
// normalization, which attnscope does not implement: the tokenizer refuses such text
// rather than tokenize it differently from Hugging Face.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attn {

namespace nfc {
struct NfcRange {
    char32_t first, last;
    uint8_t ccc;  // canonical combining class
    uint8_t qc;   // NFC_Quick_Check: 0 Yes, 1 Maybe, 2 No
};
// Sorted; code points in no range have class 0 and quick check Yes (nfc_tables.cpp).
extern const NfcRange kNfcRanges[];
extern const std::size_t kNfcRangeCount;
}  // namespace nfc

// The first code point where the quick check does not answer Yes; nullopt when the
// (valid UTF-8) text is in NFC.
std::optional<char32_t> first_not_nfc(std::string_view text);

// "0301" for U+0301: at least four upper-case hex digits.
std::string code_point_hex(char32_t cp);

}  // namespace attn
