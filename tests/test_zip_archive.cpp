// The .zip the browser page downloads for "every stage" (output/zip_archive.h): the
// structure and checksums any unzip checks. (tests/export_numpy.test.sh-style reading
// with Python's zipfile is in the browser test, on a real download.)
#include <catch2/catch.hpp>

#include <cstdint>

#include "output/zip_archive.h"

namespace {
uint32_t read32(const std::string& s, size_t at) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(s[at + static_cast<size_t>(i)]);
    return v;
}
uint32_t read16(const std::string& s, size_t at) {
    return static_cast<unsigned char>(s[at]) | static_cast<uint32_t>(static_cast<unsigned char>(s[at + 1])) << 8;
}
}  // namespace

TEST_CASE("crc32 is zip's (the IEEE polynomial)", "[zip]") {
    CHECK(attn::crc32("") == 0u);
    CHECK(attn::crc32("123456789") == 0xCBF43926u);  // the standard check value
    CHECK(attn::crc32("hello") == 0x3610A686u);
}

TEST_CASE("a stored .zip holds each file whole, with its name and checksum", "[zip]") {
    const std::string archive = attn::zip_archive({{"head0/weights.npy", "abc"}, {"tokens.csv", "x,y\n"}});
    // Local header 1 at 0: signature, method 0 (stored), crc, sizes, name, data.
    CHECK(read32(archive, 0) == 0x04034b50u);
    CHECK(read16(archive, 8) == 0);
    CHECK(read32(archive, 14) == attn::crc32("abc"));
    CHECK(read32(archive, 18) == 3);
    CHECK(read32(archive, 22) == 3);
    CHECK(archive.substr(30, 17) == "head0/weights.npy");
    CHECK(archive.substr(47, 3) == "abc");
    // The end record: two entries, the central directory where it says.
    const size_t end = archive.size() - 22;
    CHECK(read32(archive, end) == 0x06054b50u);
    CHECK(read16(archive, end + 10) == 2);
    const uint32_t central = read32(archive, end + 16);
    CHECK(read32(archive, central) == 0x02014b50u);
    CHECK(read32(archive, central + 42) == 0);  // the first file's local header
    CHECK(central + read32(archive, end + 12) == end);
}

TEST_CASE("a .zip refuses a name it cannot hold", "[zip]") {
    CHECK_THROWS_WITH(attn::zip_archive({{"", "x"}}), "a file name in a .zip must be 1 to 65535 bytes");
}
