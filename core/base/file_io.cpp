// The atomic writer and the capped reader (see file_io.h), on POSIX calls so that every
// failure can name its errno.
#include "base/file_io.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attn {

namespace {

using Problem = FileError::Problem;

std::string errno_text(int error) { return std::strerror(error); }

// "1 MB", "64 KB" or "1000 bytes": a cap as a person writes it.
std::string cap_text(std::uintmax_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MB";
    if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KB";
    return std::to_string(bytes) + " bytes";
}

[[noreturn]] void write_failed(const std::string& path, const std::string& why) {
    throw FileError(Problem::CannotWrite, path, why, path + ": cannot write: " + why);
}

[[noreturn]] void read_failed(const std::string& path, const std::string& why) {
    throw FileError(Problem::CannotRead, path, why, path + ": cannot read: " + why);
}

[[noreturn]] void too_large(const std::string& path, std::uintmax_t size, std::uintmax_t max_bytes,
                            const std::string& what) {
    throw FileError(Problem::TooLarge, path, "the file is too large",
                    path + ": the file is " + std::to_string(size) + " bytes; " + what + " is at most " +
                        cap_text(max_bytes),
                    size);
}

// The directory entry of a rename is only durable once the directory is synced.
void sync_directory(const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;  // the rename happened; durability is the best we can do
    ::fsync(fd);
    ::close(fd);
}

// A new temporary file next to `target`, opened for writing; its name goes to `tmp`.
// O_EXCL with a process-wide counter: two threads, or a stale file a crashed run left,
// never share one. Mode 0666 as any new file, so the umask decides as for an editor's.
int create_temporary(const std::filesystem::path& dir, const std::string& name, std::string& tmp) {
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0;; ++attempt) {
        tmp = (dir / ("." + name + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))).string();
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST || attempt >= 100) return fd;
    }
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes, bool durable) {
    const std::filesystem::path target(path);
    // In the same directory, so the rename is atomic (same file system).
    const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    std::string tmp;
    const int fd = create_temporary(dir, target.filename().string(), tmp);
    if (fd < 0) write_failed(path, errno_text(errno));
    const auto abandon = [&](int error) {
        ::close(fd);
        ::unlink(tmp.c_str());
        write_failed(path, errno_text(error));
    };
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) abandon(n < 0 ? errno : ENOSPC);
        done += static_cast<std::size_t>(n);
    }
    if (durable && ::fsync(fd) != 0) abandon(errno);
    if (::close(fd) != 0) {  // a network file system may report a failed write only here
        const int error = errno;
        ::unlink(tmp.c_str());
        write_failed(path, errno_text(error));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(tmp.c_str());
        write_failed(path, errno_text(error));
    }
    if (durable) sync_directory(dir.string());
}

std::string read_file_capped(const std::string& path, std::uintmax_t max_bytes, const std::string& what) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        const int error = errno;
        if (error == ENOENT || error == ENOTDIR)
            throw FileError(Problem::Missing, path, errno_text(error), path + ": no such file");
        read_failed(path, errno_text(error));
    }
    struct FdCloser {
        int fd;
        ~FdCloser() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) read_failed(path, errno_text(errno));
    if (!S_ISREG(st.st_mode))
        throw FileError(Problem::NotAFile, path, S_ISDIR(st.st_mode) ? errno_text(EISDIR) : "not a regular file",
                        path + ": not a file");
    const auto size = static_cast<std::uintmax_t>(st.st_size);
    if (size > max_bytes) too_large(path, size, max_bytes, what);

    // The file may have grown since fstat (or, in /proc, say 0): read on, one byte past
    // the cap at most, to see whether it is over.
    const std::uintmax_t limit = max_bytes < UINTMAX_MAX ? max_bytes + 1 : max_bytes;
    std::string bytes(static_cast<std::size_t>(size), '\0');
    std::size_t done = 0;
    for (;;) {
        if (done == bytes.size()) {
            if (bytes.size() > max_bytes) too_large(path, bytes.size(), max_bytes, what);
            bytes.resize(static_cast<std::size_t>(std::min<std::uintmax_t>(bytes.size() + 4096, limit)));
            if (done == bytes.size()) break;  // max_bytes is the largest size there is
        }
        const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) read_failed(path, errno_text(errno));
        if (n == 0) break;
        done += static_cast<std::size_t>(n);
    }
    bytes.resize(done);
    return bytes;
}

}  // namespace attn
