#pragma once
// Numbers as decimal text, both ways. Written: the shortest text that reads back as exactly
// the same number (the JSON, session files, exported files, the emitted Python). Read: a
// whole text as a double, false unless all of it is the number.
#include <string>

namespace attn {

std::string shortest_decimal(float v);
std::string shortest_decimal(double v);
bool read_decimal(const std::string& text, double& v);

}  // namespace attn
