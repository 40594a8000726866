// A Llama-family checkpoint's forward (core/model/llama_forward.h), as the CLI runs it:
// every head's attention weights kept (what a model view draws), the last position's
// logits only. The model is a folder in Hugging Face's layout that
// bench/compare_llama_with_pytorch.py writes with random weights in the shapes of
// SmolLM2-135M and Llama-3.2-1B: ATTNSCOPE_LLAMA_BENCH names it, and the token counts
// come as the benchmark's arguments (--benchmark_filter picks them). The weights stay
// memory-mapped; each layer is converted to float32 when its forward runs. Then one more
// token through the KV cache after T (llama_cache.h). Peak resident
// memory is reported as the counter peak_rss_mb. Threads: OMP_NUM_THREADS.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "numerics/blas_kernels.h"
#include "model/llama_cache.h"
#include "model/llama_forward.h"
#include "run/model_run.h"
#include "numerics/gemm.h"
#include "numerics/memory.h"

namespace {

// The folder ATTNSCOPE_LLAMA_BENCH names, opened once; null when it is unset.
const attn::LlamaCheckpoint* model() {
    static const std::unique_ptr<attn::LlamaCheckpoint> m = []() -> std::unique_ptr<attn::LlamaCheckpoint> {
        const char* dir = std::getenv("ATTNSCOPE_LLAMA_BENCH");
        return dir ? std::make_unique<attn::LlamaCheckpoint>(dir) : nullptr;
    }();
    return m.get();
}

std::vector<int64_t> some_ids(int n, int64_t vocab) {
    std::vector<int64_t> ids;
    for (int i = 0; i < n; ++i) ids.push_back((i * 7919 + 13) % vocab);
    return ids;
}

// The process's own peak (VmHWM), not getrusage's ru_maxrss: Linux carries that across
// execve from the image that spawned it, so after the Python script that had just written
// the 1B-shaped model (its float32 tensors resident) it read 7.5 GB.
double peak_rss_mb() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
    return -1.0;
}

void BM_LlamaForward(benchmark::State& state) {
    if (!model()) return state.SkipWithError("set ATTNSCOPE_LLAMA_BENCH to a Llama-family model folder");
    const attn::LlamaCheckpoint& m = *model();
    const std::vector<int64_t> ids = some_ids(static_cast<int>(state.range(0)), m.config().vocab_size);
    const attn::KeptStages keep = attn::KeptStages::only({"weights"});
    for (auto _ : state) benchmark::DoNotOptimize(attn::llama_forward(m, ids, keep));
    state.counters["peak_rss_mb"] = peak_rss_mb();
}
BENCHMARK(BM_LlamaForward)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

// One more token after T cached ones (llama_cache.h): what generating a token costs.
void BM_LlamaCachedToken(benchmark::State& state) {
    if (!model()) return state.SkipWithError("set ATTNSCOPE_LLAMA_BENCH to a Llama-family model folder");
    const attn::LlamaCheckpoint& m = *model();
    attn::RowVector logits;
    const attn::LlamaCache filled = attn::llama_prefill(m, some_ids(static_cast<int>(state.range(0)), m.config().vocab_size), logits);
    for (auto _ : state) {
        state.PauseTiming();
        attn::LlamaCache cache = filled;  // the same position every time
        state.ResumeTiming();
        benchmark::DoNotOptimize(attn::llama_append_token(m, cache, 42));
    }
    state.counters["peak_rss_mb"] = peak_rss_mb();
}
BENCHMARK(BM_LlamaCachedToken)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

// Typing at the end of a long text (issue 54): the model run on T tokens as the app runs
// it (every head's weights, one head's every stage, the head scores), and the same run
// after its last token changed, its other rows reused (extend_model_run). Exact ids: the
// benchmark's folder has no tokenizer.json.
attn::Settings llama_ids(const std::string& folder, int tokens, int64_t last, int64_t vocab) {
    attn::Settings s;
    s.model = folder;
    s.layer = 0;
    s.head = 0;
    std::vector<int64_t> ids = some_ids(tokens, vocab);
    ids.back() = last;
    std::string text;
    for (const int64_t id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
    s.ids = text;
    return s;
}

const attn::LoadedModel* loaded() {
    static const std::unique_ptr<attn::LoadedModel> m = []() -> std::unique_ptr<attn::LoadedModel> {
        const char* dir = std::getenv("ATTNSCOPE_LLAMA_BENCH");
        return dir ? std::make_unique<attn::LoadedModel>(attn::load_model(dir, 0)) : nullptr;
    }();
    return m.get();
}

void BM_LlamaModelRun(benchmark::State& state) {
    if (!loaded()) return state.SkipWithError("set ATTNSCOPE_LLAMA_BENCH to a Llama-family model folder");
    const attn::Settings s = llama_ids(loaded()->file, static_cast<int>(state.range(0)), 42, model()->config().vocab_size);
    for (auto _ : state) benchmark::DoNotOptimize(attn::run_model(s, *loaded(), attn::default_budget()));
}
BENCHMARK(BM_LlamaModelRun)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LlamaModelEditLast(benchmark::State& state) {
    if (!loaded()) return state.SkipWithError("set ATTNSCOPE_LLAMA_BENCH to a Llama-family model folder");
    const int T = static_cast<int>(state.range(0));
    const int64_t vocab = model()->config().vocab_size;
    const attn::ModelRun before = attn::run_model(llama_ids(loaded()->file, T, 42, vocab), *loaded(), attn::default_budget());
    const attn::Tokenized edited = attn::model_input_tokens(llama_ids(loaded()->file, T, 43, vocab), *loaded());
    for (auto _ : state) {
        std::optional<attn::ModelRun> run = attn::extend_model_run(before, edited);
        if (!run) return state.SkipWithError("the edit took a full run");
        benchmark::DoNotOptimize(run);
    }
}
BENCHMARK(BM_LlamaModelEditLast)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
    attn::choose_blas_kernels(argv);
    attn::keep_freed_memory_mapped();  // as the app and the CLI run
    benchmark::Initialize(&argc, argv);
    benchmark::AddCustomContext("blas", attn::blas_description());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
