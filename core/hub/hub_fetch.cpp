#include "hub/hub_fetch.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/byte_sizes.h"
#include "base/file_io.h"
#include "hub/hub_error.h"
#include "hub/hub_files.h"
#include "model/hub_cache.h"
#include "model/llama_checkpoint.h"
#include "model/llama_config.h"
#include "model/model_source.h"

namespace attn {

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
}

std::string trimmed(std::string text) {
    const auto space = [](unsigned char c) { return std::isspace(c); };
    text.erase(text.begin(), std::find_if_not(text.begin(), text.end(), space));
    text.erase(std::find_if_not(text.rbegin(), text.rend(), space).base(), text.end());
    return text;
}

// The repository's config.json, read from the snapshot: refused unless attnscope runs its
// model_type. Returns whether it is a Llama-family model (which reads a tokenizer.json).
bool check_architecture(const std::string& repo_id, const std::string& config_path) {
    std::string text;
    try {
        text = read_file_capped(config_path, 1 << 20, "a config.json");
    } catch (const FileError& e) {
        throw HubError(repo_id + "'s " + e.what());
    }
    if (is_llama_family_config(text)) return true;  // the loader's own test (llama_config.h)
    const nlohmann::json config = nlohmann::json::parse(text, nullptr, false);
    if (!config.is_object()) throw HubError(repo_id + "'s config.json is not a JSON object: not a model attnscope runs");
    const std::string type = config.contains("model_type") && config["model_type"].is_string()
                                 ? config["model_type"].get<std::string>() : "";
    if (type == "gpt2") return false;
    throw HubError(repo_id + " is " + (type.empty() ? "a model of no model_type" : "a " + one_line(type.substr(0, 40)) + " model") +
                   " (its config.json): attnscope runs gpt2, llama, qwen2 and qwen3 models");
}

// The shards model.safetensors.index.json names, each once.
std::vector<std::string> shard_names(const std::string& repo_id, const std::string& index_path) {
    std::set<std::string> shards;
    try {
        for (const auto& tensor_shard : weight_map(index_path)) shards.insert(tensor_shard.second);
    } catch (const std::exception& e) {
        throw HubError(repo_id + "'s model.safetensors.index.json: " + e.what());
    }
    if (shards.empty()) throw HubError(repo_id + "'s model.safetensors.index.json names no shard");
    return {shards.begin(), shards.end()};
}

void fetch_and_link(const RepoAt& at, const RemoteFile& file, const std::string& folder, uint64_t& downloaded,
                    const std::atomic<bool>* cancel) {
    downloaded += fetch_blob(at, file, folder + "/blobs", nullptr, cancel);
    link_into_snapshot(folder, file);
}

}  // namespace

std::string hub_endpoint() {
    std::string endpoint = env("HF_ENDPOINT").empty() ? "https://huggingface.co" : env("HF_ENDPOINT");
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    return endpoint;
}

bool hub_offline() {
    std::string v = env("HF_HUB_OFFLINE");
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    return v == "1" || v == "true" || v == "yes" || v == "on";
}

std::string hub_token() {
    if (!env("HF_TOKEN").empty()) return trimmed(env("HF_TOKEN"));
    const std::string path = env("HF_TOKEN_PATH").empty() ? hub_home_dir() + "/token" : env("HF_TOKEN_PATH");
    try {
        return trimmed(read_file_capped(path, 64 << 10, "a token file"));
    } catch (const FileError&) {
        return "";  // none: public repositories need none
    }
}

HubFetched fetch_model(const std::string& repo_id, const HubFetchOptions& options) {
    const std::string revision = options.revision.empty() ? "main" : options.revision;
    if (!is_hub_repo_id(repo_id)) throw HubError("\"" + repo_id + "\" is not a Hub repository id (ORG/NAME)");
    if (revision.find("..") != std::string::npos || revision.front() == '/' || revision.back() == '/')
        throw HubError("--revision " + revision + " is not a branch, tag or commit");
    const std::string at_revision = revision == "main" ? "" : " at " + revision;
    if (const std::string cached = hub_complete_snapshot(repo_id, revision); !cached.empty())
        return {cached, std::filesystem::path(cached).filename().string(), 0};
    if (hub_offline())
        throw HubError(repo_id + at_revision + " is not in the Hugging Face cache (" + hub_cache_dir() +
                       ") and HF_HUB_OFFLINE is set: unset it to download it");

    const HubHttp http(hub_endpoint(), hub_token());
    const std::string folder = hub_repo_folder(repo_id);
    std::error_code ec;
    std::filesystem::create_directories(folder + "/blobs", ec);
    if (ec) throw HubError("cannot create " + folder + "/blobs: " + ec.message());
    uint64_t downloaded = 0;

    // config.json first: the commit every other file is read at, and the architecture.
    const RemoteFile config = remote_file({http, repo_id, revision}, "config.json");
    const RepoAt at{http, repo_id, config.commit};
    fetch_and_link(at, config, folder, downloaded, options.cancel);
    const std::string snapshot = hub_snapshot_folder(repo_id, config.commit);
    const bool llama = check_architecture(repo_id, snapshot + "/config.json");

    std::vector<RemoteFile> files;
    if (llama) files.push_back(remote_file(at, "tokenizer.json"));
    const RemoteFile single = remote_file(at, "model.safetensors", true);
    if (!single.path.empty()) {
        files.push_back(single);
    } else {
        const RemoteFile index = remote_file(at, "model.safetensors.index.json", true);
        if (index.path.empty())
            throw HubError(repo_id + " has no model.safetensors or model.safetensors.index.json" + at_revision +
                           ": attnscope reads safetensors weights");
        fetch_and_link(at, index, folder, downloaded, options.cancel);
        for (const std::string& shard : shard_names(repo_id, snapshot + "/model.safetensors.index.json"))
            files.push_back(remote_file(at, shard));
    }

    // Room for what is not here yet, from the sizes the Hub reports, before any byte of it.
    HubProgress progress;
    progress.file_count = static_cast<int>(files.size());
    uint64_t need = 0, present = 0;
    for (const RemoteFile& f : files) {
        progress.total += f.size;
        const uint64_t here = blob_bytes_here(folder + "/blobs", f);
        present += here;
        need += f.size - here;
    }
    struct statvfs disk {};
    if (::statvfs((folder + "/blobs").c_str(), &disk) == 0) {
        const uint64_t room = static_cast<uint64_t>(disk.f_bavail) * disk.f_frsize;
        if (need > room)
            throw HubError("no room for " + repo_id + " in " + hub_cache_dir() + ": it needs " + size_text(double(need)) +
                           " more, the disk has " + size_text(double(room)) + " free");
    }

    const auto start = std::chrono::steady_clock::now();
    uint64_t finished = 0;  // bytes of the files before this one
    for (const RemoteFile& f : files) {
        ++progress.file_index;
        progress.file = f.path;
        const auto report = [&](uint64_t file_bytes) {
            if (!options.progress) return;
            progress.done = finished + std::min(file_bytes, f.size);
            progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            progress.rate = progress.seconds > 0 && progress.done > present ? (progress.done - present) / progress.seconds : 0;
            options.progress(progress);
        };
        report(0);
        downloaded += fetch_blob(at, f, folder + "/blobs", report, options.cancel);
        link_into_snapshot(folder, f);
        finished += f.size;
        report(f.size);
    }
    if (!is_commit_hash(revision)) {  // refs/REVISION last: it names a snapshot that is whole
        std::filesystem::create_directories(std::filesystem::path(folder + "/refs/" + revision).parent_path(), ec);
        try {
            write_file_atomically(folder + "/refs/" + revision, config.commit, false);
        } catch (const std::exception& e) {
            throw HubError(std::string("cannot write the cache's refs: ") + e.what());
        }
    }
    if (!snapshot_model_files(snapshot).complete)
        throw HubError(repo_id + "'s files arrived but its snapshot " + snapshot + " is not whole: try again");
    return {snapshot, config.commit, downloaded};
}

}  // namespace attn
