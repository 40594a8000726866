// GPT-2 BPE: vocabulary load time and encode throughput on English prose.
// bench/bpe_vs_tiktoken.js runs the encode benchmark next to js-tiktoken on the same text.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "text/gpt2_tokenizer.h"

namespace {

// bench/data/prose_en.txt repeated to at least 512 KiB (bpe_vs_tiktoken.js builds the same).
const std::string& prose() {
    static const std::string text = [] {
        const std::string path = std::string(ATTNSCOPE_BENCH_DATA_DIR) + "/prose_en.txt";
        std::ifstream in(path, std::ios::binary);
        if (!in) throw std::runtime_error("cannot read " + path);
        std::ostringstream ss;
        ss << in.rdbuf();
        const std::string once = ss.str();
        std::string repeated;
        while (repeated.size() < (512u << 10)) repeated += once;
        return repeated;
    }();
    return text;
}

const attn::Gpt2Tokenizer& gpt2() {
    static const attn::Gpt2Tokenizer tokenizer;
    return tokenizer;
}

void BM_Gpt2Load(benchmark::State& state) {
    for (auto _ : state) {
        attn::Gpt2Tokenizer tokenizer;
        benchmark::DoNotOptimize(tokenizer);
    }
}
BENCHMARK(BM_Gpt2Load)->Unit(benchmark::kMillisecond);

void BM_Gpt2EncodeProse(benchmark::State& state) {
    const std::string& text = prose();
    std::size_t tokens = 0;
    for (auto _ : state) {
        const auto ids = gpt2().encode_ids(text);
        tokens = ids.size();
        benchmark::DoNotOptimize(ids.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
    state.counters["tokens"] = static_cast<double>(tokens);
}
BENCHMARK(BM_Gpt2EncodeProse)->Unit(benchmark::kMillisecond);

// What the app calls: ids plus display strings, spans and word indices.
void BM_Gpt2EncodeWithSpansProse(benchmark::State& state) {
    const std::string& text = prose();
    for (auto _ : state) benchmark::DoNotOptimize(gpt2().encode_with_spans(text));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_Gpt2EncodeWithSpansProse)->Unit(benchmark::kMillisecond);

// One pre-tokenizer piece of 256 KiB ("xxx..."): the merge loop's worst case. A heap of
// candidate pairs keeps it near n log n; rescanning every pair after each merge (as a
// plain loop does) is quadratic and takes minutes here.
void BM_Gpt2EncodeOnePiece(benchmark::State& state) {
    const std::string text(256 << 10, 'x');
    for (auto _ : state) benchmark::DoNotOptimize(gpt2().encode_ids(text));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_Gpt2EncodeOnePiece)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
