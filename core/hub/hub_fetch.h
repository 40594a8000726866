#pragma once
// A model fetched from the Hugging Face Hub into the cache's own layout (model/hub_cache.h),
// as huggingface_hub's snapshot_download writes it: config.json first (an architecture
// attnscope does not run is refused before anything large), tokenizer.json where the
// family reads one, the safetensors (one file or the shards an index names). Each file is
// written beside its blob's name (BLOB.incomplete), resumed by a Range request after an
// interruption, and moved into place once its size and digest are the Hub's.
//
// Read from the environment as the Hub's tools read it: HF_ENDPOINT (the server), HF_TOKEN
// (else HF_TOKEN_PATH's file, else $HF_HOME/token), HF_HUB_OFFLINE (the cache only).
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "model/hub_progress.h"

namespace attn {

struct HubFetchOptions {
    std::string revision = "main";  // a branch, tag or commit
    std::function<void(const HubProgress&)> progress;  // from the fetching thread, often
    const std::atomic<bool>* cancel = nullptr;          // set: HubCancelled soon after
};

struct HubFetched {
    std::string folder;        // the snapshot folder, what load_model opens
    std::string commit;
    uint64_t downloaded = 0;   // bytes that came over the network (0: all were cached)
};

// Throws HubError with one line for each failure (hub_error.h), HubCancelled on cancel.
// With every file in the cache for `revision` it touches no network.
HubFetched fetch_model(const std::string& repo_id, const HubFetchOptions& options = {});

std::string hub_endpoint();  // HF_ENDPOINT without its trailing slash, else https://huggingface.co
bool hub_offline();          // HF_HUB_OFFLINE set to 1, true, yes or on
std::string hub_token();     // "" when none is set

}  // namespace attn
