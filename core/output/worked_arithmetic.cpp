#include "output/worked_arithmetic.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace attn {

namespace {
const char* const kMinus = "−";  // U+2212, as wide as a plus in the fonts the app uses
}

std::string format_number(float v, int decimals) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? std::string(kMinus) + "∞" : "∞";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, static_cast<double>(std::fabs(v)));
    // A value that rounds to zero is shown without a sign: float rounding should not
    // read as a negative number.
    bool zero = true;
    for (const char* p = buf; *p; ++p)
        if (*p >= '1' && *p <= '9') zero = false;
    return (std::signbit(v) && !zero ? kMinus : "") + std::string(buf);
}

std::string format_factor(float v, int decimals) {
    const std::string s = format_number(v, decimals);
    return s.rfind(kMinus, 0) == 0 ? "(" + s + ")" : s;
}

std::string format_dot_terms(const std::vector<float>& a, const std::vector<float>& b, size_t max_terms) {
    if (a.size() != b.size())
        throw std::invalid_argument("format_dot_terms: " + std::to_string(a.size()) + " and " +
                                    std::to_string(b.size()) + " values");
    const size_t n = a.size();
    std::string out;
    for (size_t i = 0; i < n && i < max_terms; ++i)
        out += (i ? " + " : "") + format_factor(a[i]) + "·" + format_factor(b[i]);
    if (n > max_terms)
        out += (max_terms ? " + … (" : "… (") + std::to_string(n) + (n == 1 ? " term)" : " terms)");
    return out;
}

}  // namespace attn
