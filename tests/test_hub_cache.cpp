// The Hugging Face cache's layout as huggingface_hub reads it (model/hub_cache.h): where it
// is, which snapshot a revision names, and when a snapshot holds all a model needs (a
// download cut short leaves one that does not, and the model is fetched again).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "llama_fixture.h"
#include "model/hub_cache.h"
#include "model/model_source.h"

namespace {

namespace fs = std::filesystem;

// Sets (or, with nullptr, unsets) an environment variable for one scope.
struct EnvVar {
    std::string name;
    std::optional<std::string> old;
    EnvVar(const char* n, const char* value) : name(n) {
        if (const char* v = std::getenv(n)) old = v;
        value ? ::setenv(n, value, 1) : ::unsetenv(n);
    }
    ~EnvVar() { old ? ::setenv(name.c_str(), old->c_str(), 1) : ::unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("the hub cache is found where huggingface_hub looks: HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, HOME",
          "[hub]") {
    const EnvVar home("HOME", "/home/u"), xdg("XDG_CACHE_HOME", nullptr), hf_home("HF_HOME", nullptr),
        cache("HF_HUB_CACHE", nullptr);
    CHECK(attn::hub_cache_dir() == "/home/u/.cache/huggingface/hub");
    {
        const EnvVar x("XDG_CACHE_HOME", "/x");
        CHECK(attn::hub_cache_dir() == "/x/huggingface/hub");
        const EnvVar h("HF_HOME", "/h");
        CHECK(attn::hub_cache_dir() == "/h/hub");
        const EnvVar c("HF_HUB_CACHE", "/c");
        CHECK(attn::hub_cache_dir() == "/c");
        CHECK(attn::hub_repo_folder("Qwen/Qwen3-0.6B") == "/c/models--Qwen--Qwen3-0.6B");
    }
    CHECK(attn::is_commit_hash(std::string(40, 'a')));
    CHECK_FALSE(attn::is_commit_hash("main"));
    CHECK_FALSE(attn::is_commit_hash(std::string(40, 'A')));  // the Hub writes them in lower case
}

TEST_CASE("a snapshot is whole with its config, tokenizer and every shard its index names, and refs name it", "[hub]") {
    const std::string dir = (fs::temp_directory_path() / ("attnscope-hubcache-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir);
    const EnvVar cache("HF_HUB_CACHE", dir.c_str());
    const std::string commit(40, 'c');
    const std::string snapshot = attn::hub_snapshot_folder("test/qwen", commit);
    attn::test::copy_golden_llama("qwen2-bias-f16-shards", snapshot, true);  // with a tokenizer.json
    CHECK(attn::hub_complete_snapshot("test/qwen").empty());  // no refs/main yet
    CHECK(attn::hub_complete_snapshot("test/qwen", commit) == snapshot);  // a commit names itself
    fs::create_directories(attn::hub_repo_folder("test/qwen") + "/refs");
    std::ofstream(attn::hub_repo_folder("test/qwen") + "/refs/main") << commit;
    CHECK(attn::hub_cached_commit("test/qwen", "main") == commit);
    CHECK(attn::hub_complete_snapshot("test/qwen") == snapshot);
    CHECK(attn::huggingface_model_folder("test/qwen") == snapshot);

    const attn::ModelFiles files = attn::snapshot_model_files(snapshot);
    CHECK(files.files == std::vector<std::string>{"config.json", "tokenizer.json", "model.safetensors.index.json",
                                                  "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"});
    CHECK(files.complete);
    fs::remove(snapshot + "/tokenizer.json");  // token ids run without it
    CHECK(attn::snapshot_model_files(snapshot).complete);
    fs::remove(snapshot + "/model-00002-of-00002.safetensors");  // a download cut short
    CHECK_FALSE(attn::snapshot_model_files(snapshot).complete);
    CHECK(attn::hub_complete_snapshot("test/qwen").empty());
    CHECK(attn::hub_cached_commit("test/qwen", "../../etc").empty());
    fs::remove_all(dir);
}
