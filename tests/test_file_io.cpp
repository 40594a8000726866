// The one atomic writer and the one capped reader (core/base/file_io.h): what is written reads
// back; a file over the cap, a missing file, a directory and a FIFO are refused in one
// line naming the file; a write that fails, for a missing directory or a full disk, leaves
// the old file as it was and no temporary file.
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_io.h"

namespace fs = std::filesystem;
using attn::FileError;

namespace {

// A fresh directory per test case (the pid in its name: other builds may run these tests
// at the same time), removed afterwards.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name)
        : path(fs::temp_directory_path() / ("attnscope-file-io-" + name + "-" + std::to_string(::getpid()))) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
    std::size_t entries() const {
        return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), fs::directory_iterator()));
    }
};

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The FileError read_file_capped throws, or a FileError of problem CannotWrite saying
// that it threw none.
FileError read_error(const std::string& path, std::uintmax_t max_bytes, const std::string& what) {
    try {
        attn::read_file_capped(path, max_bytes, what);
    } catch (const FileError& e) {
        return e;
    }
    return FileError(FileError::Problem::CannotWrite, path, "", "(no error)");
}

FileError write_error(const std::string& path, const std::string& bytes, bool durable) {
    try {
        attn::write_file_atomically(path, bytes, durable);
    } catch (const FileError& e) {
        return e;
    }
    return FileError(FileError::Problem::CannotRead, path, "", "(no error)");
}

}  // namespace

TEST_CASE("file_io: what is written reads back, durable or not, replacing the old file", "[file_io]") {
    TempDir dir("roundtrip");
    const std::string path = dir.file("a.bin");
    const std::string bytes = std::string("line 1\nline 2\n\0\xff binary too", 28);
    attn::write_file_atomically(path, bytes, false);
    CHECK(attn::read_file_capped(path, 1 << 20, "a test file") == bytes);

    attn::write_file_atomically(path, "shorter", true);
    CHECK(attn::read_file_capped(path, 1 << 20, "a test file") == "shorter");
    attn::write_file_atomically(path, "", true);
    CHECK(attn::read_file_capped(path, 0, "a test file").empty());
    CHECK(dir.entries() == 1);  // no temporary file left next to it

    const std::string big(3 << 20, 'x');  // several reads and writes
    attn::write_file_atomically(path, big, false);
    CHECK(attn::read_file_capped(path, big.size(), "a test file") == big);
}

TEST_CASE("file_io: a new file gets the permissions the umask gives any new file", "[file_io]") {
    TempDir dir("mode");
    const mode_t old = ::umask(022);
    attn::write_file_atomically(dir.file("m.txt"), "x", false);
    ::umask(old);
    CHECK((fs::status(dir.file("m.txt")).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read));
}

TEST_CASE("file_io: the cap refuses a larger file in one line with both sizes", "[file_io]") {
    TempDir dir("cap");
    const std::string path = dir.file("s.json");
    attn::write_file_atomically(path, "0123456789", false);
    CHECK(attn::read_file_capped(path, 10, "a test file") == "0123456789");

    const FileError small = read_error(path, 9, "a test file");
    CHECK(small.problem == FileError::Problem::TooLarge);
    CHECK(small.size == 10);
    CHECK(std::string(small.what()) == path + ": the file is 10 bytes; a test file is at most 9 bytes");

    fs::resize_file(path, (1 << 20) + 1);  // sparse: no disk used
    CHECK(std::string(read_error(path, 1 << 20, "a session").what()) ==
          path + ": the file is 1048577 bytes; a session is at most 1 MB");
    CHECK(std::string(read_error(path, 64 << 10, "a shader").what()) ==
          path + ": the file is 1048577 bytes; a shader is at most 64 KB");
}

TEST_CASE("file_io: a missing file, a directory and a FIFO are refused, naming the file", "[file_io]") {
    TempDir dir("missing");
    const FileError missing = read_error(dir.file("nope.json"), 100, "a test file");
    CHECK(missing.problem == FileError::Problem::Missing);
    CHECK(std::string(missing.what()) == dir.file("nope.json") + ": no such file");
    CHECK(missing.reason == "No such file or directory");
    CHECK(read_error(dir.file("nope/below.json"), 100, "a test file").problem == FileError::Problem::Missing);

    const FileError directory = read_error(dir.path.string(), 100, "a test file");
    CHECK(directory.problem == FileError::Problem::NotAFile);
    CHECK(std::string(directory.what()) == dir.path.string() + ": not a file");

    // A FIFO without a writer: refused at once, not waited on.
    REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
    const FileError fifo = read_error(dir.file("fifo"), 100, "a test file");
    CHECK(fifo.problem == FileError::Problem::NotAFile);
    CHECK(std::string(fifo.what()) == dir.file("fifo") + ": not a file");
}

TEST_CASE("file_io: writing into a missing directory fails in one line and leaves nothing", "[file_io]") {
    TempDir dir("nodir");
    const std::string path = dir.file("missing/out.json");
    const FileError e = write_error(path, "text", true);
    CHECK(e.problem == FileError::Problem::CannotWrite);
    CHECK(std::string(e.what()) == path + ": cannot write: No such file or directory");
    CHECK(e.reason == "No such file or directory");
    CHECK(dir.entries() == 0);

    // A directory in the way of the file: the rename fails, the temporary file goes.
    fs::create_directories(dir.path / "taken" / "inside");
    const FileError taken = write_error(dir.file("taken"), "text", false);
    CHECK(taken.problem == FileError::Problem::CannotWrite);
    CHECK_THAT(taken.what(), Catch::StartsWith(dir.file("taken") + ": cannot write: "));
    CHECK(dir.entries() == 1);
    CHECK(fs::is_directory(dir.path / "taken" / "inside"));
}

TEST_CASE("file_io: a write that fails halfway (a full disk) leaves the old file intact", "[file_io]") {
    TempDir dir("full");
    const std::string path = dir.file("state.json");
    attn::write_file_atomically(path, "old\n", true);

    // RLIMIT_FSIZE stands in for a full disk, for root too: write() stops at 64 bytes with
    // EFBIG (SIGXFSZ ignored, as its default action would end the test program).
    rlimit old_limit{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old_limit;
    small.rlim_cur = 64;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    const FileError durable = write_error(path, std::string(1000, 'n'), true);
    const FileError fast = write_error(path, std::string(1000, 'n'), false);
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);

    for (const FileError& e : {durable, fast}) {
        CHECK(e.problem == FileError::Problem::CannotWrite);
        CHECK(std::string(e.what()) == path + ": cannot write: File too large");
    }
    CHECK(read(path) == "old\n");
    CHECK(dir.entries() == 1);
}
