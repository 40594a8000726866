#pragma once
// One file of a Hub repository: its metadata from a HEAD of its resolve URL, its bytes into
// the cache's blobs, its link in a snapshot. hub_fetch.cpp puts them together.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "hub/hub_http.h"

namespace attn {

struct RemoteFile {
    std::string path;      // in the repository: "config.json", "model-00001-of-00002.safetensors"
    std::string commit;    // X-Repo-Commit: the commit the revision names
    std::string etag;      // the blob's name: a large file's SHA-256, a small one's git SHA-1
    uint64_t size = 0;
    std::string location;  // where its bytes are (the file server's URL for a large file)
};

struct RepoAt {
    const HubHttp& http;
    std::string repo_id;
    std::string revision;  // as asked for (messages); the commit once known (URLs)
};

// HEAD ENDPOINT/REPO/resolve/REVISION/PATH. Throws HubError with the Hub's reason (no such
// repository, gated, no such revision, no network). `optional`: a missing file is
// returned as an empty path instead.
RemoteFile remote_file(const RepoAt& repo, const std::string& path, bool optional = false);

// How many of its bytes are in `blobs_dir` already: all (its blob), what a .incomplete holds, 0.
uint64_t blob_bytes_here(const std::string& blobs_dir, const RemoteFile& file);

// Its bytes in `blobs_dir`/ETAG, unless they are there: through ETAG.incomplete, resumed
// from what that holds, retried on a broken transfer, checked against size and digest.
// Returns the bytes that came over the network. Throws HubError (a corrupt file is
// deleted), HubCancelled (what came stays to resume).
uint64_t fetch_blob(const RepoAt& repo, const RemoteFile& file, const std::string& blobs_dir,
                    const std::function<void(uint64_t)>& progress, const std::atomic<bool>* cancel);

// The metadata a HEAD's answer `a` (a 200, or the redirect to the file server) gives of
// `path`; `url` the resolve URL asked. Throws HubError for what no Hub would send (no commit,
// ETag or size; a blob name that is a path; a size that is no number; an address that is not
// http or https): what a stranger's server sends, fuzzed (fuzz/fuzz_hub_answer.cpp).
RemoteFile read_file_answer(const HttpAnswer& a, const std::string& url, const std::string& endpoint,
                            const std::string& repo_id, const std::string& path);

// SNAPSHOT/PATH as a relative link to the blob (../../blobs/ETAG, deeper for a nested path).
void link_into_snapshot(const std::string& repo_folder, const RemoteFile& file);

// A failure's one line: the Hub's error code or status, or libcurl's reason.
[[noreturn]] void throw_hub_failure(const RepoAt& repo, const std::string& path, const HttpAnswer& answer);

}  // namespace attn
