#include "model/hub_progress.h"

#include <cmath>
#include <cstdio>

#include "base/byte_sizes.h"

namespace attn {

namespace {

std::string duration_text(double seconds) {
    const long s = std::lround(seconds);
    char text[32];
    if (s >= 3600) std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
    return text;
}

}  // namespace

std::string hub_progress_text(const HubProgress& p) {
    std::string text = p.file + " (" + std::to_string(p.file_index) + "/" + std::to_string(p.file_count) +
                       "): " + size_text(double(p.done)) + " of " + size_text(double(p.total));
    if (p.rate > 0) text += ", " + size_text(p.rate) + "/s, " + duration_text(double(p.total - p.done) / p.rate) + " left";
    return text;
}

}  // namespace attn
