// The page's side of platform.h's Hub downloads. app/web/hub.js fetches (the browser's
// fetch, Cache Storage, the page's file system); this file starts its jobs, reads their
// progress each frame into the desktop's words, decides before the weights come whether
// the model fits the page's memory, and lists what the browser keeps.
#include "platform/web_hub.h"

#include <emscripten.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "base/byte_sizes.h"
#include "model/hub_cache.h"
#include "model/hub_progress.h"
#include "model/llama_config.h"
#include "model/model_source.h"
#include "platform/platform.h"

namespace {

// clang-format off
EM_JS(void, js_hub_start, (const char* repo, const char* revision, const char* folder), {
    Module.attnscopeHub.start(UTF8ToString(repo), UTF8ToString(revision), UTF8ToString(folder));
});
EM_JS(char*, js_hub_status, (const char* repo), { return stringToNewUTF8(Module.attnscopeHub.status(UTF8ToString(repo))); });
EM_JS(void, js_hub_proceed, (const char* repo, const char* refusal), {
    Module.attnscopeHub.proceed(UTF8ToString(repo), UTF8ToString(refusal));
});
EM_JS(void, js_hub_cancel, (const char* repo), { Module.attnscopeHub.cancel(UTF8ToString(repo)); });
EM_JS(void, js_hub_forget, (const char* repo), { Module.attnscopeHub.forget(UTF8ToString(repo)); });
EM_JS(int, js_hub_kept_version, (), { return window.attnscopeKept ? window.attnscopeKept.version : 0; });
EM_JS(char*, js_hub_kept, (), { return stringToNewUTF8(Module.attnscopeHub.kept()); });
EM_JS(void, js_hub_remove, (const char* repo), { Module.attnscopeHub.remove(UTF8ToString(repo)); });
// clang-format on

nlohmann::json take_json(char* text) {  // a string hub.js made, freed here
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    std::free(text);
    return j;
}

// The page's memory: -sMAXIMUM_MEMORY=4GB (app/web/Web.cmake), one wasm32 heap. A model's
// files lie in the page's file system outside it (JavaScript's memory), but the loader
// maps them, and in the page a mapping is a copy in the heap (emscripten's MEMFS): the
// weights stay in the file's dtype there, as on the desktop. Besides them the heap holds
// what the model widens to float32 and the app itself (kAppBytes, an allowance).
// Measured in Debian's headless Chromium through this download, with made-up checkpoints of
// the real shapes (zeros): GPT-2 medium's (F32, 1.42 GB without its buffers) opened and ran,
// the heap at 2.93 GB; Llama 3.2 1B's one 2.47 GB file arrived but could not be mapped
// ("cannot map: Out of memory"), hence kMaxFileBytes. The 4 GiB total is computed, not measured.
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kPageMemory = 4.0 * kGiB;
constexpr double kMaxFileBytes = 2.0 * kGiB;
constexpr double kAppBytes = 0.5 * kGiB;
// The largest of the Hub list (model/hub_catalog.cpp) that fits by the rule below.
constexpr const char* kLargestThatFits = "GPT-2 medium (1.52 GB)";

// Why `repo` (its config.json, its weights' bytes, its largest file) would not fit the page's
// memory; "" when it fits. A Llama-family model widens one layer at a time
// (llama_checkpoint.h); GPT-2 reads every weight into float32 while the file is mapped
// (gpt2_checkpoint.cpp).
std::string memory_refusal(const std::string& repo, const std::string& config_text, double weights,
                           const std::string& largest_file, double largest) {
    const std::string tail = ": the largest of the Hub list that opens here is " + std::string(kLargestThatFits) +
                             "; the desktop app opens " + repo;
    if (largest >= kMaxFileBytes)
        return repo + "'s " + largest_file + " is " + attn::size_text(largest) +
               ": the page cannot map a file of 2 GiB or more into its memory" + tail;
    double widened = 0.0;
    std::string how;
    if (attn::is_llama_family_config(config_text)) {
        try {
            const attn::LlamaConfig c = attn::parse_llama_config(config_text, repo + "'s config.json");
            const double d = c.hidden_size, q = double(c.heads) * c.head_dim, kv = double(c.kv_heads) * c.head_dim;
            widened = 4.0 * (d * q + 2.0 * d * kv + q * d + 3.0 * d * c.intermediate_size);
        } catch (const std::exception& e) {
            return e.what();  // a model this forward does not compute: said before its weights come
        }
        how = "held as the file has them, a layer widened to float32 at a time";
    } else {
        const nlohmann::json config = nlohmann::json::parse(config_text, nullptr, false);
        const std::string dtype = config.is_object() && config.value("torch_dtype", nlohmann::json()).is_string()
                                      ? config["torch_dtype"].get<std::string>() : "float32";
        widened = weights * (dtype == "float16" || dtype == "bfloat16" ? 2.0 : 1.0);
        how = "and their float32 copy";
    }
    const double need = weights + widened + kAppBytes;
    if (need <= kPageMemory) return "";
    return repo + " needs about " + attn::size_text(need) + " of the page's memory (its " + attn::size_text(weights) +
           " of weights " + how + "), more than the page's " + attn::size_text(kPageMemory) + tail;
}

// hub.js's progress as model/hub_progress.h has it: the desktop's words.
std::string progress_text(const nlohmann::json& s) {
    attn::HubProgress p;
    p.file = s.value("file", std::string());
    p.file_index = s.value("index", 0);
    p.file_count = s.value("count", 0);
    p.done = static_cast<uint64_t>(std::max(0.0, s.value("done", 0.0)));
    p.total = static_cast<uint64_t>(std::max(0.0, s.value("total", 0.0)));
    p.seconds = s.value("seconds", 0.0);
    p.rate = p.seconds > 0 ? s.value("arrived", 0.0) / p.seconds : 0.0;
    return attn::hub_progress_text(p);
}

struct Job {
    bool finished = false;
    std::string error;  // a finished job's failure
};
std::map<std::string, Job>& jobs() {
    static std::map<std::string, Job> all;
    return all;
}
std::map<std::string, std::string>& pins() {  // repository: the revision pin_revision asked for
    static std::map<std::string, std::string> all;
    return all;
}
std::set<std::string>& here() {  // repositories whose snapshot is in the page's file system
    static std::set<std::string> all;
    return all;
}
std::string revision_of(const std::string& repo) {
    const auto it = pins().find(repo);
    return it == pins().end() ? "main" : it->second;
}

}  // namespace

namespace app::platform {

std::string fetch_hub_model(const std::string& repo, std::string& error) {
    if (here().count(repo)) return "";
    const std::string revision = revision_of(repo);
    if (!jobs().count(repo)) {
        if (!attn::hub_complete_snapshot(repo, revision).empty()) {
            here().insert(repo);
            return "";
        }
        jobs()[repo] = Job{};
        js_hub_start(repo.c_str(), revision.c_str(), attn::hub_repo_folder(repo).c_str());
    }
    Job& job = jobs()[repo];
    if (job.finished) {
        error = job.error;
        return "";
    }
    const nlohmann::json s = take_json(js_hub_status(repo.c_str()));
    const std::string phase = s.is_object() ? s.value("phase", std::string()) : "";
    if (phase == "done") {
        job.finished = true;
        if (attn::hub_complete_snapshot(repo, revision).empty())
            job.error = repo + "'s files arrived but its snapshot is not whole: reload the page to try again";
        else
            here().insert(repo);
        error = job.error;
        return "";
    }
    if (phase == "failed" || phase.empty()) {
        job.finished = true;
        job.error = phase.empty() ? "the page lost the download of " + repo : s.value("error", std::string());
        error = job.error;
        return "";
    }
    if (phase == "sized") {
        const std::string refusal = memory_refusal(repo, s.value("config", std::string()), s.value("weights", 0.0),
                                                   s.value("largest_file", std::string()), s.value("largest", 0.0));
        js_hub_proceed(repo.c_str(), refusal.c_str());
    }
    if (s.value("from_storage", false)) return "opening " + repo + " from this browser's storage…";
    if (phase != "downloading") return "asking the Hub for " + repo + "…";
    return "downloading " + repo + ": " + progress_text(s);
}

double fetch_fraction(const std::optional<std::string>& model) {
    if (!model || !attn::is_hub_repo_id(*model) || here().count(*model)) return -1.0;
    const auto it = jobs().find(*model);
    if (it == jobs().end() || it->second.finished) return -1.0;
    const nlohmann::json s = take_json(js_hub_status(model->c_str()));
    const double total = s.is_object() ? s.value("total", 0.0) : 0.0;
    return total > 0 ? std::min(1.0, s.value("done", 0.0) / total) : 0.0;
}

void cancel_fetch(const std::string& model) { js_hub_cancel(model.c_str()); }

void retry_fetch(const std::string& model) {  // a failed or cancelled download: the next fetch_model starts another
    const auto it = jobs().find(model);
    if (it == jobs().end() || !it->second.finished) return;
    jobs().erase(it);
    js_hub_forget(model.c_str());
}

bool fetches_from_hub() { return true; }

// The page sends no token: a gated repository is the desktop's.
std::string gated_note() { return " (gated: the page sends no token; the desktop app with HF_TOKEN opens it)"; }

void pin_revision(const std::string& repo, const std::string& revision) { pins()[repo] = revision; }

std::optional<std::string> pinned_folder(const std::string& model) {
    const auto pin = pins().find(model);
    if (pin == pins().end() || !here().count(model)) return std::nullopt;
    const std::string folder = attn::hub_complete_snapshot(model, pin->second);
    pins().erase(pin);
    if (folder.empty()) return std::nullopt;
    return folder;
}

const KeptModels& kept_models() {
    static int version = -1;
    static KeptModels kept;
    if (const int now = js_hub_kept_version(); now != version) {  // hub.js lists them again after each change
        version = now;
        kept = KeptModels{};
        const nlohmann::json k = take_json(js_hub_kept());
        if (!k.is_object()) return kept;
        if (k.contains("models") && k["models"].is_array())
            for (const nlohmann::json& m : k["models"])
                if (m.is_object()) kept.models.push_back({m.value("repo", std::string()), m.value("bytes", 0.0)});
        kept.usage = k.value("usage", 0.0);
        kept.quota = k.value("quota", 0.0);
    }
    return kept;
}

void remove_kept_model(const std::string& repo) { js_hub_remove(repo.c_str()); }

}  // namespace app::platform
