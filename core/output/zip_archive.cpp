#include "output/zip_archive.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>

#include "base/file_io.h"
#include "output/stage_files.h"

namespace attn {

namespace {

// Little-endian fields, as the zip format (PKWARE's APPNOTE) lays them out.
void put16(std::string& out, uint32_t v) {
    out += static_cast<char>(v & 0xff);
    out += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& out, uint32_t v) {
    put16(out, v & 0xffff);
    put16(out, v >> 16);
}

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEnd = 0x06054b50;
constexpr uint32_t kVersion = 20;  // 2.0: what a stored file needs
constexpr uint32_t kUtf8Names = 1u << 11;
constexpr uint32_t kDosDate = (2026 - 1980) << 9 | 1 << 5 | 1;  // a fixed date: the same stages, the same bytes

}  // namespace

uint32_t crc32(const std::string& bytes) {
    static const std::array<uint32_t, 256> table = [] {
        std::array<uint32_t, 256> t{};
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    uint32_t c = 0xFFFFFFFFu;
    for (const char ch : bytes) c = table[(c ^ static_cast<unsigned char>(ch)) & 0xff] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

std::string zip_archive(const std::vector<std::pair<std::string, std::string>>& files) {
    constexpr uint64_t kMax = std::numeric_limits<uint32_t>::max();
    if (files.size() > 0xffff) throw ExportError("too many files for a .zip (" + std::to_string(files.size()) + ")");
    std::string archive, central;
    for (const auto& file : files) {
        const std::string &name = file.first, &bytes = file.second;  // (clang 14's lambdas cannot capture a structured binding)
        if (name.empty() || name.size() > 0xffff) throw ExportError("a file name in a .zip must be 1 to 65535 bytes");
        if (archive.size() + bytes.size() + name.size() + 30 > kMax) throw ExportError("the .zip would pass 4 GB");
        const uint32_t crc = crc32(bytes), size = static_cast<uint32_t>(bytes.size());
        const uint32_t offset = static_cast<uint32_t>(archive.size());
        // The fields a local header and a central directory entry share.
        const auto common = [&](std::string& out) {
            put16(out, kVersion);
            put16(out, kUtf8Names);
            put16(out, 0);  // stored
            put16(out, 0);  // time
            put16(out, kDosDate);
            put32(out, crc);
            put32(out, size);  // compressed
            put32(out, size);
            put16(out, static_cast<uint32_t>(name.size()));
            put16(out, 0);  // extra field
        };
        put32(archive, kLocalHeader);
        common(archive);
        archive += name;
        archive += bytes;
        put32(central, kCentralHeader);
        put16(central, kVersion);  // made by
        common(central);
        put16(central, 0);  // comment
        put16(central, 0);  // disk
        put16(central, 0);  // internal attributes
        put32(central, 0);  // external attributes
        put32(central, offset);
        central += name;
    }
    if (archive.size() + central.size() + 22 > kMax) throw ExportError("the .zip would pass 4 GB");
    const uint32_t central_at = static_cast<uint32_t>(archive.size());
    archive += central;
    put32(archive, kEnd);
    put16(archive, 0);  // this disk
    put16(archive, 0);  // the central directory's disk
    put16(archive, static_cast<uint32_t>(files.size()));
    put16(archive, static_cast<uint32_t>(files.size()));
    put32(archive, static_cast<uint32_t>(central.size()));
    put32(archive, central_at);
    put16(archive, 0);  // comment
    return archive;
}

std::vector<std::pair<std::string, std::string>> files_under(const std::string& dir) {
    namespace fs = std::filesystem;
    std::vector<std::pair<std::string, std::string>> files;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        const std::string name = fs::relative(e.path(), dir).generic_string();
        files.emplace_back(name, read_file_capped(e.path().string(), std::numeric_limits<uint32_t>::max(), "a stage file"));
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace attn
