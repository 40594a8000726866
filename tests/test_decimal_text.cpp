// Numbers as text: shortest_decimal's digits read back as the very number, in the native
// build (std::to_chars) and in the web build's stand-in (grisu_decimal), checked here on
// the host against to_chars and strtof on floats of every exponent.
#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "base/decimal_text.h"

namespace {

float float_of_bits(uint32_t bits) {
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

// The significant digits of a decimal text ("-0.00125" and "1.25e-03" both have 3).
int significant_digits(const std::string& text) {
    int digits = 0;
    bool leading = true;
    for (const char c : text) {
        if (c == 'e') break;
        if (c < '0' || c > '9') continue;
        if (leading && c == '0') continue;
        leading = false;
        ++digits;
    }
    // Trailing zeros of a whole number ("1200") are not significant either.
    for (size_t i = text.find('e') == std::string::npos ? text.size() : text.find('e'); i-- > 0 && digits > 1;) {
        if (text[i] == '0' && text.find('.') == std::string::npos) --digits;
        else break;
    }
    return digits;
}

}  // namespace

TEST_CASE("grisu_decimal reads back as the very float, in at most two digits more than to_chars", "[decimal]") {
    // Every exponent, subnormals included, each with mantissas spread over its range.
    uint64_t state = 12345;
    int longer = 0, checked = 0;
    for (uint32_t exponent = 0; exponent < 255; ++exponent)
        for (int i = 0; i < 400; ++i) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const uint32_t bits = (exponent << 23) | static_cast<uint32_t>(state >> 41) | (i % 2 ? 0x80000000u : 0u);
            const float v = float_of_bits(bits);
            const std::string text = attn::grisu_decimal(v);
            INFO("bits " << bits << ": " << text);
            REQUIRE(std::strtof(text.c_str(), nullptr) == v);
            char buf[32];
            const std::string shortest(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
            // Where to_chars writes a large whole number out ("8602575872"), its digits
            // are more than grisu's exponent form's ("8.602576e+09"): only more counts.
            const int extra = significant_digits(text) - significant_digits(shortest);
            CHECK(extra <= 2);
            longer += extra > 0;
            ++checked;
        }
    CHECK(longer * 100 < checked);  // grisu2 is the shortest for all but a few in a thousand
    // The layout as the native build writes these: whole numbers without ".0".
    CHECK(attn::grisu_decimal(1.0f) == "1");
    CHECK(attn::grisu_decimal(-0.0f) == "-0");
    CHECK(attn::grisu_decimal(0.1f) == "0.1");
    CHECK(attn::grisu_decimal(1e-05f) == "1e-05");
    CHECK(attn::grisu_decimal(std::numeric_limits<float>::infinity()) == "inf");
    CHECK(attn::grisu_decimal(-std::numeric_limits<float>::infinity()) == "-inf");
    CHECK(attn::grisu_decimal(0.1) == "0.1");  // a double: its own shortest
    CHECK(std::strtod(attn::grisu_decimal(2.0 / 3.0).c_str(), nullptr) == 2.0 / 3.0);
}
