// A Llama-family model's small files from strangers: config.json and
// model.safetensors.index.json. The first byte picks which one the rest is: even, a
// config.json parsed as --model reads it (a config that parses must be one the forward
// can run: heads a multiple of key/value heads, an even head_dim); odd, an index in a
// folder beside a valid config.json, opened as a checkpoint (its shards then do not
// exist: every name must be refused in one line, none may leave the folder).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "fuzz_common.h"
#include "model/llama_checkpoint.h"

using namespace attn;

namespace {

const char* kConfig = R"({"model_type": "qwen2", "hidden_size": 8, "num_attention_heads": 2,
 "num_key_value_heads": 1, "intermediate_size": 12, "num_hidden_layers": 1, "vocab_size": 16})";

std::string folder() {
    static const std::string f = [] {
        const std::string dir = "/tmp/attnscope-fuzz-llama." + std::to_string(::getpid());
        ::mkdir(dir.c_str(), 0700);
        std::ofstream(dir + "/config.json") << kConfig;
        std::atexit([] {
            const std::string d = "/tmp/attnscope-fuzz-llama." + std::to_string(::getpid());
            ::unlink((d + "/config.json").c_str());
            ::unlink((d + "/model.safetensors.index.json").c_str());
            ::rmdir(d.c_str());
        });
        return dir;
    }();
    return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    if (data[0] % 2 == 0) {
        std::optional<LlamaConfig> c;
        if (!fuzz::refusals_are_fine([&] { c.emplace(parse_llama_config(text, "config.json")); })) return 0;
        fuzz::check(c->kv_heads > 0 && c->heads % c->kv_heads == 0, "heads are a multiple of key/value heads");
        fuzz::check(c->head_dim > 0 && c->head_dim % 2 == 0, "head_dim is even");
        fuzz::check(c->hidden_size > 0 && c->layers > 0 && c->vocab_size > 0, "sizes are positive");
        return 0;
    }
    const std::string dir = folder();
    std::ofstream(dir + "/model.safetensors.index.json", std::ios::binary | std::ios::trunc) << text;
    fuzz::refusals_are_fine([&] { LlamaCheckpoint checkpoint(dir); });
    return 0;
}
