#include "hub/hub_files.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include "hub/file_digest.h"
#include "hub/hub_error.h"

namespace attn {

namespace {

constexpr int kTries = 4;  // a broken transfer is resumed this many times in all

// An ETag as the blob's name: without W/ and quotes.
std::string etag_name(std::string tag) {
    if (tag.rfind("W/", 0) == 0) tag.erase(0, 2);
    if (tag.size() >= 2 && tag.front() == '"' && tag.back() == '"') tag = tag.substr(1, tag.size() - 2);
    return tag;
}

bool is_hex(const std::string& text, size_t size) {
    return text.size() == size && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

uint64_t size_of(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

// Whether libcurl's failure is a transfer broken part-way, worth resuming.
bool broken_transfer(int code) {
    return code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR ||
           code == CURLE_OPERATION_TIMEDOUT || code == CURLE_GOT_NOTHING || code == CURLE_HTTP2_STREAM ||
           code == CURLE_HTTP2;
}

std::string url_path(const std::string& path) {  // each segment escaped, the slashes kept
    std::string out;
    size_t start = 0;
    for (size_t slash; (slash = path.find('/', start)) != std::string::npos; start = slash + 1)
        out += HubHttp::escape(path.substr(start, slash - start)) + "/";
    return out + HubHttp::escape(path.substr(start));
}

// The lock huggingface_hub takes on a blob while it writes it (CACHE/.locks/models--ORG--NAME/
// ETAG.lock, flock'd): two downloads of one file, by two attnscopes or by attnscope and the
// Hub's own tools, never append to the same .incomplete. Waiting for it, Cancel still works.
class BlobLock {
  public:
    BlobLock(const std::string& blobs_dir, const std::string& etag, const std::atomic<bool>* cancel) {
        namespace fs = std::filesystem;
        const fs::path repo = fs::path(blobs_dir).parent_path();
        const fs::path dir = repo.parent_path() / ".locks" / repo.filename();
        std::error_code ec;
        fs::create_directories(dir, ec);
        const std::string path = (dir / (etag + ".lock")).string();
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) throw HubError("cannot open the cache's lock " + path + ": " + std::strerror(errno));
        while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK && errno != EINTR) throw HubError("cannot lock " + path + ": " + std::strerror(errno));
            if (cancel && cancel->load()) {
                ::close(fd_);
                throw HubCancelled("the download was cancelled while another one of the same file went on");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    ~BlobLock() { ::close(fd_); }  // closing releases the lock; the file stays, as huggingface_hub leaves it
    BlobLock(const BlobLock&) = delete;
    BlobLock& operator=(const BlobLock&) = delete;

  private:
    int fd_ = -1;
};

}  // namespace

void throw_hub_failure(const RepoAt& repo, const std::string& path, const HttpAnswer& a) {
    const std::string& endpoint = repo.http.endpoint();
    if (a.curl_code != 0)
        throw HubError("cannot reach the Hub at " + endpoint + " (" + a.curl_error +
                       "): set HF_HUB_OFFLINE=1 to use only the cache");
    const std::string code = a.header("x-error-code");
    const bool no_token = !repo.http.has_token();
    if (code == "GatedRepo" || ((a.status == 401 || a.status == 403) && a.body.find("gated") != std::string::npos))
        throw HubError(repo.repo_id + (no_token ? " is gated: it needs a token that has accepted its licence: set HF_TOKEN"
                                                : " is gated and the token sent has not accepted its licence: accept it at " +
                                                      endpoint + "/" + repo.repo_id));
    if (code == "RepoNotFound" || a.status == 401)
        throw HubError("no repository " + repo.repo_id + " on the Hub at " + endpoint +
                       (no_token ? " (a private one needs HF_TOKEN)" : ""));
    if (code == "RevisionNotFound") throw HubError(repo.repo_id + " has no revision " + repo.revision);
    if (code == "EntryNotFound" || a.status == 404)
        throw HubError(repo.repo_id + " has no " + path + " at " + repo.revision);
    throw HubError("the Hub at " + endpoint + " answered HTTP " + std::to_string(a.status) + " for " + repo.repo_id +
                   "'s " + path + ": try again later");
}

RemoteFile remote_file(const RepoAt& repo, const std::string& path, bool optional) {
    const std::string url = repo.http.endpoint() + "/" + repo.repo_id + "/resolve/" + HubHttp::escape(repo.revision) +
                            "/" + url_path(path);
    const HttpAnswer a = repo.http.head(url);
    const bool found = a.curl_code == 0 && (a.status == 200 || (a.status >= 300 && a.status < 400));
    if (!found) {
        const std::string code = a.header("x-error-code");
        if (optional && a.curl_code == 0 && (code == "EntryNotFound" || (a.status == 404 && code.empty()))) return {};
        throw_hub_failure(repo, path, a);
    }
    return read_file_answer(a, url, repo.http.endpoint(), repo.repo_id, path);
}

RemoteFile read_file_answer(const HttpAnswer& a, const std::string& url, const std::string& endpoint,
                            const std::string& repo_id, const std::string& path) {
    RemoteFile f;
    f.path = path;
    f.commit = a.header("x-repo-commit");
    // A large file's SHA-256 comes as X-Linked-Etag beside the redirect to its bytes.
    f.etag = etag_name(a.header("x-linked-etag").empty() ? a.header("etag") : a.header("x-linked-etag"));
    const std::string size = a.header("x-linked-size").empty() ? a.header("content-length") : a.header("x-linked-size");
    f.size = std::strtoull(size.c_str(), nullptr, 10);
    f.location = a.status >= 300 ? a.header("location") : url;
    if (!f.location.empty() && f.location[0] == '/') f.location = endpoint + f.location;
    if (f.commit.empty() || f.etag.empty() || size.empty() || f.location.empty())
        throw HubError("the server at " + endpoint + " did not answer as the Hub does for " + repo_id + "'s " + path +
                       " (no X-Repo-Commit, ETag, size or location): is HF_ENDPOINT a Hub?");
    if (f.etag.find('/') != std::string::npos || f.etag == "." || f.etag == "..")
        throw HubError("the Hub named " + path + "'s blob \"" + f.etag.substr(0, 80) + "\", not a file name");
    if (!is_hex(f.commit, 40)) throw HubError("the Hub named " + repo_id + "'s commit \"" + f.commit.substr(0, 80) + "\", not a hash");
    if (size.find_first_not_of("0123456789") != std::string::npos || size.size() > 18)
        throw HubError("the Hub gave " + path + "'s size as \"" + size.substr(0, 80) + "\", not a number of bytes");
    if (f.location.rfind("http://", 0) != 0 && f.location.rfind("https://", 0) != 0)
        throw HubError("the Hub sent " + path + " to \"" + f.location.substr(0, 80) + "\", not an http(s) address");
    return f;
}

uint64_t blob_bytes_here(const std::string& blobs_dir, const RemoteFile& file) {
    const std::string blob = blobs_dir + "/" + file.etag;
    if (exists(blob) && size_of(blob) == file.size) return file.size;
    return std::min(size_of(blob + ".incomplete"), file.size);
}

uint64_t fetch_blob(const RepoAt& repo, const RemoteFile& file, const std::string& blobs_dir,
                    const std::function<void(uint64_t)>& progress, const std::atomic<bool>* cancel) {
    const std::string blob = blobs_dir + "/" + file.etag, part = blob + ".incomplete";
    const auto whole = [&] { return exists(blob) && size_of(blob) == file.size; };
    if (whole()) return 0;
    const BlobLock lock(blobs_dir, file.etag, cancel);
    if (whole()) return 0;  // another process brought it meanwhile
    if (size_of(part) > file.size) std::remove(part.c_str());  // not this file's start: begin again
    uint64_t arrived = 0;
    for (int attempt = 1;; ++attempt) {
        const uint64_t offset = size_of(part);
        if (offset == file.size && file.size > 0) break;
        std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(part.c_str(), "ab"), &std::fclose);
        if (!out) throw HubError("cannot write " + part + ": " + std::strerror(errno));
        const HttpAnswer a = repo.http.get_to_file(file.location, out.get(), offset, progress, cancel);
        const bool closed = std::fclose(out.release()) == 0;
        arrived += size_of(part) > offset ? size_of(part) - offset : size_of(part);
        if (a.curl_code == CURLE_ABORTED_BY_CALLBACK) throw HubCancelled("the download of " + repo.repo_id + " was cancelled");
        if (a.curl_code == CURLE_WRITE_ERROR || !closed)
            throw HubError("cannot write " + part + " (is the disk full?)");
        if (a.curl_code == 0 && a.status == 416) {  // a range past the end: what is here is not this file
            std::remove(part.c_str());
            if (attempt < kTries) continue;
        }
        if (a.curl_code == 0 && (a.status == 200 || a.status == 206)) break;
        if (attempt < kTries && (broken_transfer(a.curl_code) || (a.curl_code == 0 && a.status >= 500))) {
            std::this_thread::sleep_for(std::chrono::milliseconds(250 << attempt));
            continue;
        }
        throw_hub_failure(repo, file.path, a);
    }
    const auto corrupt = [&](const std::string& why) {
        std::remove(part.c_str());
        throw HubError(repo.repo_id + "'s " + file.path + " arrived corrupt (" + why +
                       "): nothing of it was kept; try again");
    };
    if (size_of(part) != file.size)
        corrupt(std::to_string(size_of(part)) + " bytes, the Hub said " + std::to_string(file.size));
    if (is_hex(file.etag, 64) && sha256_file_hex(part) != file.etag) corrupt("its SHA-256 is not the Hub's");
    if (is_hex(file.etag, 40) && git_blob_sha1_hex(part) != file.etag) corrupt("its git SHA-1 is not the Hub's");
    if (std::rename(part.c_str(), blob.c_str()) != 0) throw HubError("cannot move " + part + " into place: " + std::strerror(errno));
    return arrived;
}

void link_into_snapshot(const std::string& repo_folder, const RemoteFile& file) {
    namespace fs = std::filesystem;
    const fs::path link = fs::path(repo_folder) / "snapshots" / file.commit / file.path;
    std::string target = "../../blobs/" + file.etag;  // from snapshots/COMMIT/
    for (size_t slash = file.path.find('/'); slash != std::string::npos; slash = file.path.find('/', slash + 1))
        target = "../" + target;
    std::error_code ec;
    fs::create_directories(link.parent_path(), ec);
    fs::remove(link, ec);
    fs::create_symlink(target, link, ec);
    if (ec) throw HubError("cannot link " + link.string() + " to its blob: " + ec.message());
}

}  // namespace attn
