#include "base/decimal_text.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace attn {

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
// A library without floating-point to_chars (emscripten's libc++ for the web build): the
// fewest significant digits that read back exactly. The same value as to_chars gives, in
// printf's layout ("0.0001" where to_chars writes "1e-04").
namespace {
template <class T>
std::string fewest_digits(T v, int most, T (*read)(const char*, char**)) {
    char buf[40];
    for (int digits = 1; digits < most; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
        if (read(buf, nullptr) == v) return buf;
    }
    std::snprintf(buf, sizeof buf, "%.*g", most, static_cast<double>(v));
    return buf;
}
}  // namespace

std::string shortest_decimal(float v) { return fewest_digits<float>(v, 9, std::strtof); }
std::string shortest_decimal(double v) { return fewest_digits<double>(v, 17, std::strtod); }
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
