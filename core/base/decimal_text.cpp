#include "base/decimal_text.h"

#include <charconv>
#include <cstdio>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

namespace attn {

namespace {

template <class T>
std::string grisu(T v) {
    char buf[48];
    if (!std::isfinite(v)) {  // as printf writes them: inf, -inf, nan
        std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
        return buf;
    }
    std::string text(buf, nlohmann::detail::to_chars(buf, buf + sizeof buf, v));
    // Its whole numbers end in ".0" (a JSON habit); to_chars writes "1", as Python reads it too.
    if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
    return text;
}

}  // namespace

std::string grisu_decimal(float v) { return grisu(v); }
std::string grisu_decimal(double v) { return grisu(v); }

#ifdef __cpp_lib_to_chars
std::string shortest_decimal(float v) {
    char buf[32];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
std::string shortest_decimal(double v) {
    char buf[32];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
bool read_decimal(const std::string& text, double& v) {
    const char* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(text.data(), last, v, std::chars_format::general);
    return ec == std::errc() && end == last;
}
#else
std::string shortest_decimal(float v) { return grisu_decimal(v); }
std::string shortest_decimal(double v) { return grisu_decimal(v); }
// strtod takes more than from_chars (leading spaces, "inf", hexadecimal); callers that
// care check the text's form first (setting_values.cpp's plain_decimal).
bool read_decimal(const std::string& text, double& v) {
    if (text.empty()) return false;
    char* end = nullptr;
    v = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
}
#endif

}  // namespace attn
