#pragma once
// The digests the Hub names its files by, read from a file in chunks (a shard is
// gigabytes): a large (LFS) file's SHA-256, a small one's git blob SHA-1, as hex.
#include <cstdint>
#include <string>

namespace attn {

std::string sha256_file_hex(const std::string& path);
// SHA-1 of "blob SIZE\0" followed by the bytes: the id git gives the file's contents.
std::string git_blob_sha1_hex(const std::string& path);

}  // namespace attn
