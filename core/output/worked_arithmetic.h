#pragma once
// Worked arithmetic as a student reads it: one way of writing a number and a dot
// product, shared by the lesson texts (core/classroom/lesson_text.cpp) and the app's cell
// details, so that the same product on one screen is printed the same way in both.
//
//   format_number(-0.07391f)        "−0.0739"   4 decimals, a real minus sign (U+2212)
//   format_number(-0.00001f)        "0.0000"    rounding to zero leaves no sign (-0 too)
//   format_number(-INFINITY)        "−∞"
//   format_factor(-0.5f)            "(−0.5000)" a negative factor in parentheses
//   format_dot_terms({0.55, -0.87}, {0.43, 0.66})
//                                   "0.5500·0.4300 + (−0.8700)·0.6600"
//   the same with 6 terms           "a₁·b₁ + a₂·b₂ + a₃·b₃ + a₄·b₄ + … (6 terms)"
#include <cstddef>
#include <string>
#include <vector>

namespace attn {

constexpr int kWorkedDecimals = 4;     // of every value in lesson texts and cell details
constexpr size_t kDotTermsShown = 4;   // terms of a dot product written out before "+ …"

// `decimals` decimals; "∞" / "−∞"; "nan". A value that rounds to zero has no sign.
std::string format_number(float v, int decimals = kWorkedDecimals);

// format_number, in parentheses when it shows a minus sign: a·(−b), not a·−b.
std::string format_factor(float v, int decimals = kWorkedDecimals);

// a[0]·b[0] + a[1]·b[1] + …: every term when there are at most `max_terms`, else the
// first `max_terms` and "+ … (n terms)". Empty vectors give "". Throws
// std::invalid_argument when the sizes differ.
std::string format_dot_terms(const std::vector<float>& a, const std::vector<float>& b,
                             size_t max_terms = kDotTermsShown);

}  // namespace attn
