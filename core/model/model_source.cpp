#include "model/model_source.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "base/data_dir.h"
#include "model/gpt2_checkpoint.h"

namespace attn {

const char* const kShippedModel = "sotu-small";

namespace {

const char* const kGpt2Sizes[] = {"gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"};

bool is_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
}

std::string hub_cache() {
    if (!env("HF_HUB_CACHE").empty()) return env("HF_HUB_CACHE");
    if (!env("HF_HOME").empty()) return env("HF_HOME") + "/hub";
    if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/huggingface/hub";
    return env("HOME") + "/.cache/huggingface/hub";
}

std::vector<std::string> subfolders(const std::string& path) {
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(path.c_str())) {
        while (const dirent* e = ::readdir(dir))
            if (e->d_name[0] != '.') names.emplace_back(e->d_name);
        ::closedir(dir);
    }
    std::sort(names.begin(), names.end());
    return names;
}

// The snapshot of one hub repository folder holding model.safetensors: refs/main's first.
std::string snapshot_file(const std::string& repo) {
    std::string main;
    std::ifstream(repo + "/refs/main") >> main;
    if (!main.empty() && main.find('/') == std::string::npos && is_file(repo + "/snapshots/" + main + "/model.safetensors"))
        return repo + "/snapshots/" + main + "/model.safetensors";
    for (const std::string& snapshot : subfolders(repo + "/snapshots"))
        if (is_file(repo + "/snapshots/" + snapshot + "/model.safetensors"))
            return repo + "/snapshots/" + snapshot + "/model.safetensors";
    return "";
}

}  // namespace

std::string shipped_model_dir() { return data_path(std::string("models/") + kShippedModel); }

bool shipped_model_present() { return is_file(shipped_model_dir() + "/model.safetensors"); }

std::vector<FoundCheckpoint> find_huggingface_gpt2() {
    std::vector<FoundCheckpoint> found;
    const std::string hub = hub_cache();
    for (const char* name : kGpt2Sizes)
        for (const std::string& repo : {"models--openai-community--" + std::string(name), "models--" + std::string(name)}) {
            const std::string file = snapshot_file(hub + "/" + repo);
            if (!file.empty()) {
                found.push_back({name, file});
                break;
            }
        }
    return found;
}

bool is_model_name(const std::string& name) {
    return name == "gpt-ch4" || name == kShippedModel ||
           std::find(std::begin(kGpt2Sizes), std::end(kGpt2Sizes), name) != std::end(kGpt2Sizes);
}

LoadedModel load_model(const std::string& name, uint64_t seed) {
    LoadedModel m;
    m.name = name;
    if (name == "gpt-ch4") {
        m.dtype = "float32";
        m.seed = seed;
        m.model = std::make_shared<const GptModel>(build_gpt_ch4(gpt_config_124m(), seed));
        return m;
    }
    std::string path = name;
    if (name == kShippedModel) path = shipped_model_dir();
    if (std::find(std::begin(kGpt2Sizes), std::end(kGpt2Sizes), name) != std::end(kGpt2Sizes)) {
        const std::vector<FoundCheckpoint> found = find_huggingface_gpt2();
        const auto it = std::find_if(found.begin(), found.end(), [&](const FoundCheckpoint& f) { return f.name == name; });
        if (it == found.end())
            throw ArgsError(name + " is not in the Hugging Face cache (" + hub_cache() +
                            "); get it with: huggingface-cli download openai-community/" + name +
                            " model.safetensors config.json (or give --model the file's path)");
        path = it->file;
    }
    Gpt2Checkpoint c = load_gpt2_checkpoint(path);
    m.file = c.file;
    m.dtype = c.dtype;
    m.model = std::make_shared<const GptModel>(std::move(c.model));
    return m;
}

}  // namespace attn
