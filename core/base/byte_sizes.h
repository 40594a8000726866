#pragma once
// Sizes in bytes as people write them: the budget's flag and environment variable read
// "512M", and every message that says what a run would need writes "23.4 GB".
#include <cstdint>
#include <string>

namespace attn {

// "512M", "2G", "1.5G", "4096K", "1000000" (bytes; K, M, G, T are powers of 1024).
// Throws ArgsError naming `flag` otherwise.
uint64_t parse_size(const std::string& flag, const std::string& text);
// "23.4 GB", "512 MB", "12 kB", in the units parse_size reads (1 MB = 2^20 bytes).
std::string size_text(double bytes);

}  // namespace attn
