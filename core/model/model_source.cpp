#include "model/model_source.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "base/data_dir.h"
#include "base/file_io.h"
#include "model/gpt2_checkpoint.h"
#include "model/hub_cache.h"

namespace attn {

const char* const kShippedModel = "sotu-small";
const char* const kAttentionOnlyModel = "sotu-attn-only";

const std::vector<std::string>& shipped_models() {
    static const std::vector<std::string> names = {kShippedModel, kAttentionOnlyModel};
    return names;
}

bool is_shipped_model(const std::string& name) {
    const std::vector<std::string>& names = shipped_models();
    return std::find(names.begin(), names.end(), name) != names.end();
}
const char* const kSeededModel = "gpt-ch4";

bool is_seeded_model(const std::optional<std::string>& name) { return name && *name == kSeededModel; }

namespace {

const char* const kGpt2Sizes[] = {"gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"};

bool is_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
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

// The first snapshot folder of one hub repository that `fits`: refs/main's first; "" if none.
template <class Fits>
std::string first_snapshot(const std::string& repo, Fits&& fits) {
    std::string main;
    std::ifstream(repo + "/refs/main") >> main;
    std::vector<std::string> snapshots = subfolders(repo + "/snapshots");
    const auto it = std::find(snapshots.begin(), snapshots.end(), main);
    if (it != snapshots.end()) std::rotate(snapshots.begin(), it, it + 1);
    for (const std::string& snapshot : snapshots)
        if (fits(repo + "/snapshots/" + snapshot)) return repo + "/snapshots/" + snapshot;
    return "";
}

// The snapshot's model.safetensors (GPT-2's repositories).
std::string snapshot_file(const std::string& repo) {
    const std::string dir = first_snapshot(repo, [](const std::string& d) { return is_file(d + "/model.safetensors"); });
    return dir.empty() ? "" : dir + "/model.safetensors";
}

// A snapshot folder that is a Llama-family model with its weights.
std::string llama_snapshot(const std::string& repo) {
    return first_snapshot(repo, [](const std::string& dir) {
        return is_llama_family_folder(dir) &&
               (is_file(dir + "/model.safetensors") || is_file(dir + "/model.safetensors.index.json"));
    });
}

// A snapshot folder with a config.json and its weights (any family: GPT-2's repositories too).
std::string model_snapshot(const std::string& repo) {
    return first_snapshot(repo, [](const std::string& dir) {
        return is_file(dir + "/config.json") &&
               (is_file(dir + "/model.safetensors") || is_file(dir + "/model.safetensors.index.json"));
    });
}

}  // namespace

bool is_llama_family_folder(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    try {
        return is_llama_family_config(read_file_capped(path + "/config.json", 1 << 20, "a config.json"));
    } catch (const FileError&) {
        return false;  // no readable config.json: a GPT-2 checkpoint's folder, say
    }
}

std::vector<FoundCheckpoint> find_huggingface_llama() {
    std::vector<FoundCheckpoint> found;
    const std::string hub = hub_cache_dir();
    for (const std::string& repo : subfolders(hub)) {
        if (repo.rfind("models--", 0) != 0) continue;
        const std::string dir = llama_snapshot(hub + "/" + repo);
        if (dir.empty()) continue;
        std::string name = repo.substr(8);  // models--ORG--NAME: ORG/NAME
        if (const size_t cut = name.find("--"); cut != std::string::npos) name.replace(cut, 2, "/");
        found.push_back({name, dir});
    }
    return found;
}

ModelShape model_shape(const LoadedModel& model) { return model.model->shape(); }

std::string shipped_model_dir(const std::string& name) { return data_path("models/" + name); }

bool shipped_model_present(const std::string& name) { return is_file(shipped_model_dir(name) + "/model.safetensors"); }

std::vector<FoundCheckpoint> find_huggingface_gpt2() {
    std::vector<FoundCheckpoint> found;
    const std::string hub = hub_cache_dir();
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

bool is_hub_repo_id(const std::string& name) {
    // ORG/NAME: one slash, neither part empty, nothing a path starts with.
    const size_t slash = name.find('/');
    return slash != std::string::npos && slash > 0 && slash + 1 < name.size() &&
           name.find('/', slash + 1) == std::string::npos && name[0] != '.' && name[0] != '~' &&
           name.find_first_of(" \\:") == std::string::npos &&
           (name.size() < 12 || name.compare(name.size() - 12, 12, ".safetensors") != 0);
}

std::string huggingface_model_folder(const std::string& repo_id) {
    // The snapshot refs/main names with every file the model needs; else, as a cache that
    // a download of some files only or another tool wrote may be, the first that has a
    // config and weights.
    const std::string complete = hub_complete_snapshot(repo_id, "main");
    return complete.empty() ? model_snapshot(hub_repo_folder(repo_id)) : complete;
}

std::string model_folder(const std::string& name) {
    // A Hugging Face repository id ("HuggingFaceTB/SmolLM2-135M") names its folder in the
    // cache, unless something of that relative path is here.
    if (!is_hub_repo_id(name) || exists(name)) return name;
    const std::string folder = huggingface_model_folder(name);
    if (folder.empty())
        throw ArgsError(name + " is not in the Hugging Face cache (" + hub_cache_dir() + "): attnscope --model " + name +
                        " or attnscope-cli --model " + name + " downloads it");
    return folder;
}

void check_revision_flag(const std::optional<std::string>& model, const std::optional<std::string>& revision) {
    if (revision && (!model || !is_hub_repo_id(*model)))
        throw ArgsError("--revision pins the branch, tag or commit of --model ORG/NAME, a Hub repository");
    if (revision && revision->empty()) throw ArgsError("--revision needs a branch, tag or commit");
}

bool is_model_name(const std::string& name) {
    return name == kSeededModel || is_shipped_model(name) ||
           std::find(std::begin(kGpt2Sizes), std::end(kGpt2Sizes), name) != std::end(kGpt2Sizes);
}

LoadedModel load_model(const std::string& name, uint64_t seed) {
    LoadedModel m;
    m.name = name;
    if (is_seeded_model(name)) {
        m.dtype = "float32";
        m.seed = seed;
        m.model = gpt_language_model(std::make_shared<const GptModel>(build_gpt_ch4(gpt_config_124m(), seed)));
        return m;
    }
    const std::string folder = model_folder(name);
    if (is_llama_family_folder(folder)) {
        auto llama = std::make_shared<const LlamaCheckpoint>(folder);
        m.file = folder;
        m.dtype = llama->dtype();
        // Exact ids need no tokenizer; a text does, and its run says what is missing.
        std::shared_ptr<const HfTokenizer> tokenizer;
        if (is_file(folder + "/tokenizer.json")) {
            try {
                tokenizer = HfTokenizer::cached(folder + "/tokenizer.json");
            } catch (const TokenizeError&) {
            }
        }
        m.model = llama_language_model(std::move(llama), std::move(tokenizer));
        return m;
    }
    std::string path = folder;  // a GPT-2 checkpoint: a repository's snapshot, a folder or a file
    if (is_shipped_model(name)) path = shipped_model_dir(name);
    if (std::find(std::begin(kGpt2Sizes), std::end(kGpt2Sizes), name) != std::end(kGpt2Sizes)) {
        const std::vector<FoundCheckpoint> found = find_huggingface_gpt2();
        const auto it = std::find_if(found.begin(), found.end(), [&](const FoundCheckpoint& f) { return f.name == name; });
        if (it == found.end())
            throw ArgsError(name + " is not in the Hugging Face cache (" + hub_cache_dir() +
                            "): attnscope-cli --model openai-community/" + name +
                            " downloads it (or give --model the file's path)");
        path = it->file;
    }
    Gpt2Checkpoint c = load_gpt2_checkpoint(path);
    m.file = c.file;
    m.dtype = c.dtype;
    m.model = gpt_language_model(std::make_shared<const GptModel>(std::move(c.model)));
    return m;
}

}  // namespace attn
