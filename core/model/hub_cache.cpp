#include "model/hub_cache.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "base/file_io.h"
#include "model/llama_checkpoint.h"
#include "model/llama_config.h"

namespace attn {

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
}

bool is_file(const std::string& path) {  // stat follows the snapshot's links to their blobs
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_folder(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string hub_home_dir() {
    if (!env("HF_HOME").empty()) return env("HF_HOME");
    if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/huggingface";
    return env("HOME") + "/.cache/huggingface";
}

std::string hub_cache_dir() { return env("HF_HUB_CACHE").empty() ? hub_home_dir() + "/hub" : env("HF_HUB_CACHE"); }

std::string hub_repo_folder(const std::string& repo_id) {
    std::string name = repo_id;  // ORG/NAME: models--ORG--NAME
    for (size_t slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 2))
        name.replace(slash, 1, "--");
    return hub_cache_dir() + "/models--" + name;
}

bool is_commit_hash(const std::string& revision) {
    return revision.size() == 40 && revision.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string hub_snapshot_folder(const std::string& repo_id, const std::string& commit) {
    return hub_repo_folder(repo_id) + "/snapshots/" + commit;
}

std::string hub_cached_commit(const std::string& repo_id, const std::string& revision) {
    // A revision with a slash (a branch "refs/pr/1") is a path under refs/, as the Hub's
    // tools write it; none leaves the folder.
    if (revision.empty() || revision.find("..") != std::string::npos) return "";
    std::string commit;
    std::ifstream(hub_repo_folder(repo_id) + "/refs/" + revision) >> commit;
    // The Hub's refs hold commit hashes; a cache put together by hand may name its snapshot otherwise.
    if (!commit.empty() && commit.find('/') == std::string::npos && commit != "." && commit != ".." &&
        is_folder(hub_snapshot_folder(repo_id, commit)))
        return commit;
    if (is_commit_hash(revision) && is_folder(hub_snapshot_folder(repo_id, revision))) return revision;
    return "";
}

ModelFiles snapshot_model_files(const std::string& folder) {
    ModelFiles m;
    m.files.push_back("config.json");
    bool complete = is_file(folder + "/config.json");
    bool llama = true;  // without a config, the most a family could need
    if (complete) {
        try {
            llama = is_llama_family_config(read_file_capped(folder + "/config.json", 1 << 20, "a config.json"));
        } catch (const FileError&) {
            complete = false;
        }
    }
    if (llama) m.files.push_back("tokenizer.json");
    const std::string index = folder + "/model.safetensors.index.json";
    if (is_file(index)) {
        m.files.push_back("model.safetensors.index.json");
        std::set<std::string> shards;
        try {
            for (const auto& tensor_shard : weight_map(index)) shards.insert(tensor_shard.second);
        } catch (const std::exception&) {
            complete = false;
        }
        m.files.insert(m.files.end(), shards.begin(), shards.end());
        if (shards.empty()) complete = false;
    } else {
        m.files.push_back("model.safetensors");
    }
    for (const std::string& file : m.files)  // a tokenizer is not needed to run token ids
        complete = complete && (file == "tokenizer.json" || is_file(folder + "/" + file));
    m.complete = complete;
    return m;
}

std::string hub_complete_snapshot(const std::string& repo_id, const std::string& revision) {
    const std::string commit = hub_cached_commit(repo_id, revision);
    if (commit.empty()) return "";
    const std::string folder = hub_snapshot_folder(repo_id, commit);
    return snapshot_model_files(folder).complete ? folder : "";
}

}  // namespace attn
