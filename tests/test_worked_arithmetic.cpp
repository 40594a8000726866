// Worked arithmetic: the one way lesson texts and the app's cell details write a number
// and a dot product (core/output/worked_arithmetic.h).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "output/worked_arithmetic.h"

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();
}

TEST_CASE("a number: 4 decimals, a real minus sign, infinities as ∞", "[worked]") {
    CHECK(attn::format_number(0.55f) == "0.5500");
    CHECK(attn::format_number(1.45514f) == "1.4551");
    CHECK(attn::format_number(-0.07391f) == "−0.0739");  // U+2212, not a hyphen
    CHECK(attn::format_number(-12.5f) == "−12.5000");
    CHECK(attn::format_number(kInf) == "∞");
    CHECK(attn::format_number(-kInf) == "−∞");
    CHECK(attn::format_number(std::nanf("")) == "nan");
    CHECK(attn::format_number(-std::nanf("")) == "nan");
    CHECK(attn::format_number(-0.55f, 2) == "−0.55");
    CHECK(attn::format_number(2.0f, 0) == "2");
}

TEST_CASE("a number that rounds to zero has no sign, -0 included", "[worked]") {
    CHECK(attn::format_number(0.0f) == "0.0000");
    CHECK(attn::format_number(-0.0f) == "0.0000");
    CHECK(attn::format_number(-0.00004f) == "0.0000");
    CHECK(attn::format_number(-0.00006f) == "−0.0001");
    CHECK(attn::format_number(-0.004f, 2) == "0.00");
}

TEST_CASE("a factor is parenthesised only when it shows a minus sign", "[worked]") {
    CHECK(attn::format_factor(0.43f) == "0.4300");
    CHECK(attn::format_factor(-0.43f) == "(−0.4300)");
    CHECK(attn::format_factor(-0.0f) == "0.0000");
    CHECK(attn::format_factor(-0.00004f) == "0.0000");  // reads as 0, so no parentheses
    CHECK(attn::format_factor(-kInf) == "(−∞)");
    CHECK(attn::format_factor(kInf) == "∞");
}

TEST_CASE("a dot product: negative factors in parentheses on either side", "[worked]") {
    CHECK(attn::format_dot_terms({0.55f, -0.87f}, {0.43f, 0.66f}) == "0.5500·0.4300 + (−0.8700)·0.6600");
    CHECK(attn::format_dot_terms({0.55f, 0.87f}, {-0.43f, -kInf}) == "0.5500·(−0.4300) + 0.8700·(−∞)");
    CHECK(attn::format_dot_terms({-0.0f}, {-0.0f}) == "0.0000·0.0000");
    CHECK(attn::format_dot_terms({}, {}).empty());
    CHECK_THROWS_AS(attn::format_dot_terms({1.0f, 2.0f}, {1.0f}), std::invalid_argument);
}

TEST_CASE("a dot product shows at most kDotTermsShown terms, then how many there are", "[worked]") {
    const std::vector<float> ones(6, 1.0f), halves(6, 0.5f);
    const std::string term = "1.0000·0.5000";
    REQUIRE(attn::kDotTermsShown == 4);
    CHECK(attn::format_dot_terms(std::vector<float>(4, 1.0f), std::vector<float>(4, 0.5f)) ==
          term + " + " + term + " + " + term + " + " + term);  // exactly the cap: no "…"
    CHECK(attn::format_dot_terms(std::vector<float>(5, 1.0f), std::vector<float>(5, 0.5f)) ==
          term + " + " + term + " + " + term + " + " + term + " + … (5 terms)");
    CHECK(attn::format_dot_terms(ones, halves) == term + " + " + term + " + " + term + " + " + term + " + … (6 terms)");
    CHECK(attn::format_dot_terms(ones, halves, 2) == term + " + " + term + " + … (6 terms)");
    CHECK(attn::format_dot_terms(ones, halves, 0) == "… (6 terms)");
    CHECK(attn::format_dot_terms({1.0f}, {0.5f}, 0) == "… (1 term)");
    CHECK(attn::format_dot_terms(ones, halves, 100) == attn::format_dot_terms(ones, halves, 6));
}
