#pragma once
// Numbers as decimal text, both ways. Written: the shortest text that reads back as exactly
// the same number (the JSON, session files, exported files, the emitted Python). Read: a
// whole text as a double, false unless all of it is the number.
#include <string>

namespace attn {

std::string shortest_decimal(float v);
std::string shortest_decimal(double v);
bool read_decimal(const std::string& text, double& v);

// Grisu2 (nlohmann::json's): digits that read back as exactly `v` (as a float for a float),
// the shortest or, rarely, one more; printf's layout ("0.0001", "1e-05"). What
// shortest_decimal is where the library has no floating-point to_chars (emscripten's
// libc++, the web build), which printed and read back digit by digit in musl's software
// long double: the CLI's JSON of a 12-head MHA over 256 tokens (16.5 M numbers) took
// 185 s under node, now 4.5 s (both beside a CI run), the same float32 values.
std::string grisu_decimal(float v);
std::string grisu_decimal(double v);

}  // namespace attn
