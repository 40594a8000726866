#pragma once
// The Hugging Face hub cache, as huggingface_hub lays it out and reads it:
//   CACHE/models--ORG--NAME/blobs/ETAG            each file's bytes, named by its ETag
//                                                 (SHA-256 of a large file, git SHA-1 of a small one)
//   CACHE/models--ORG--NAME/snapshots/COMMIT/FILE relative links to ../../blobs/ETAG
//   CACHE/models--ORG--NAME/refs/REVISION         the commit a branch or tag named when fetched
// Only paths and what is on disk here: fetching is core/hub/ (the desktop build's).
#include <string>
#include <vector>

namespace attn {

// $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface: where the Hub's
// tools keep their cache and the token `huggingface-cli login` writes.
std::string hub_home_dir();
// $HF_HUB_CACHE, else hub_home_dir()/hub.
std::string hub_cache_dir();
// CACHE/models--ORG--NAME for the repository id ORG/NAME.
std::string hub_repo_folder(const std::string& repo_id);
// Whether `revision` is a full commit hash (40 hexadecimal digits).
bool is_commit_hash(const std::string& revision);
// The commit `revision` names in the cache: refs/REVISION's, the revision itself when it
// is a commit the cache has a snapshot of; "" when the cache does not know it.
std::string hub_cached_commit(const std::string& repo_id, const std::string& revision);
// CACHE/models--ORG--NAME/snapshots/COMMIT.
std::string hub_snapshot_folder(const std::string& repo_id, const std::string& commit);

// The files a model needs from its repository (what is fetched and what makes a snapshot
// complete): config.json; tokenizer.json where the family reads one; the weights, one
// model.safetensors or the shards model.safetensors.index.json names.
struct ModelFiles {
    std::vector<std::string> files;  // repository paths, config.json first
    // Every one is in the folder (links resolved), the tokenizer aside: a model put into the
    // cache without one runs token ids (fetch_model gets it before the weights).
    bool complete = false;
};
// What a snapshot folder holds and lacks. The family and the shards are read from the
// folder's config.json and index when they are there; without them the list is what they
// would be read from.
ModelFiles snapshot_model_files(const std::string& folder);

// The snapshot folder of `repo_id` at `revision` that holds every file the model needs,
// "" when the cache has none.
std::string hub_complete_snapshot(const std::string& repo_id, const std::string& revision = "main");

}  // namespace attn
