#include "text/nfc_check.h"

#include <algorithm>
#include <cstdio>

#include "text/utf8.h"

namespace attn {

namespace {

const nfc::NfcRange* find_range(char32_t cp) {
    const nfc::NfcRange* end = nfc::kNfcRanges + nfc::kNfcRangeCount;
    const auto* it = std::lower_bound(nfc::kNfcRanges, end, cp, [](const nfc::NfcRange& r, char32_t c) { return r.last < c; });
    return it != end && it->first <= cp ? it : nullptr;
}

}  // namespace

std::optional<char32_t> first_not_nfc(std::string_view text) {
    uint8_t last_ccc = 0;
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Char c = decode_utf8_char(text, i);
        i += c.len > 0 ? c.len : 1;
        if (c.cp < 0x300) {  // below the first combining mark: class 0, quick check Yes
            last_ccc = 0;
            continue;
        }
        const nfc::NfcRange* r = find_range(c.cp);
        const uint8_t ccc = r ? r->ccc : 0;
        if ((r && r->qc != 0) || (ccc != 0 && last_ccc > ccc)) return c.cp;
        last_ccc = ccc;
    }
    return std::nullopt;
}

std::string code_point_hex(char32_t cp) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(cp));
    return hex;
}

}  // namespace attn
