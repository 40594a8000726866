#include "base/byte_sizes.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "base/user_error.h"

namespace attn {

std::string size_text(double bytes) {  // in the units parse_size reads: 1 MB = 2^20 bytes
    constexpr double kB = 1024.0, MB = kB * 1024, GB = MB * 1024;
    char out[32];
    if (bytes >= GB) std::snprintf(out, sizeof out, "%.1f GB", bytes / GB);
    else if (bytes >= MB) std::snprintf(out, sizeof out, "%.0f MB", bytes / MB);
    else std::snprintf(out, sizeof out, "%.0f kB", bytes / kB);
    return out;
}

uint64_t parse_size(const std::string& flag, const std::string& text) {
    const auto bad = [&] { return ArgsError(flag + " needs a size such as 512M, 2G or a number of bytes, got '" + text + "'"); };
    size_t digits = 0;
    while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) ++digits;
    if (digits == 0 || text[0] == '.') throw bad();
    const std::string number = text.substr(0, digits), unit = text.substr(digits);
    if (std::count(number.begin(), number.end(), '.') > 1 || number.back() == '.') throw bad();
    double scale = 1.0;
    if (unit == "K" || unit == "k") scale = 1024.0;
    else if (unit == "M" || unit == "m") scale = 1024.0 * 1024;
    else if (unit == "G" || unit == "g") scale = 1024.0 * 1024 * 1024;
    else if (unit == "T" || unit == "t") scale = 1024.0 * 1024 * 1024 * 1024;
    else if (!unit.empty()) throw bad();
    const double bytes = std::strtod(number.c_str(), nullptr) * scale;
    if (!(bytes >= 1.0) || bytes > 1e18) throw bad();
    return static_cast<uint64_t>(bytes);
}

}  // namespace attn
