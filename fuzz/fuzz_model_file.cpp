// GPT-2 checkpoints (safetensors): the input is the file, loaded as --model and File >
// Open model... load it, from a folder of its own (so no stray config.json is read). A
// checkpoint that loads must run: one forward pass over its first token and the first
// position, whose next-token probabilities sum to 1.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>

#include "fuzz_common.h"
#include "model/gpt2_checkpoint.h"
#include "model/gpt_forward.h"
#include "model/next_token.h"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string folder = [] {
        const std::string f = "/tmp/attnscope-fuzz-model." + std::to_string(::getpid());
        ::mkdir(f.c_str(), 0700);
        // libFuzzer ends with exit() when its time is up: leave no folder behind (every
        // run of the test command left one in /tmp).
        std::atexit([] {
            const std::string dir = "/tmp/attnscope-fuzz-model." + std::to_string(::getpid());
            ::unlink((dir + "/model.safetensors").c_str());
            ::rmdir(dir.c_str());
        });
        return f;
    }();
    const std::string path = folder + "/model.safetensors";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || (size && std::fwrite(data, 1, size, f) != size)) fuzz::fuzz_fail("cannot write " + path);
    std::fclose(f);

    std::optional<Gpt2Checkpoint> loaded;
    if (!fuzz::refusals_are_fine([&] { loaded.emplace(load_gpt2_checkpoint(folder)); })) return 0;
    // Weights that load may still overflow (1e38 is finite): the forward refuses in one line.
    std::optional<ModelTrace> t;
    if (!fuzz::refusals_are_fine([&] { t.emplace(gpt_forward(loaded->model, {0}, KeptStages::only({"weights"}))); }))
        return 0;
    const auto top = top_next_tokens(t->logits.row(0), loaded->model.cfg.vocab_size);
    double sum = 0;
    for (const auto& token : top) sum += token.prob;
    // Weights may hold inf/nan (a file may store them); then the sum says nothing.
    if (t->logits.allFinite()) fuzz::check(std::abs(sum - 1.0) < 1e-3, "next-token probabilities sum to 1");
    return 0;
}
