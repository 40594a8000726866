// The engine's speed on the reference workloads, every stage recorded:
// the book's multi-head example, T = 256 and 1024 with d = 768 and 12 heads, and
// building nn.Embedding(50257, 768). bench/compare_with_pytorch.py runs PyTorch on the
// same work in the same run and prints the ratios. Threads: OMP_NUM_THREADS.
#include <benchmark/benchmark.h>

#include "attention/attention.h"
#include "attention/embedding.h"
#include "numerics/memory.h"

namespace {

// MultiHeadAttention(d_in, d_out, ..., num_heads=heads): the weight-split module.
attn::AttentionConfig multi_head(int d_out, int heads) {
    attn::AttentionConfig cfg;
    cfg.variant = attn::Variant::Mha;
    cfg.d_out = d_out;
    cfg.heads = heads;
    return cfg;
}

// 000's last example: MultiHeadAttention(d_in=3, d_out=2, context_length=6, 0.0,
// num_heads=2) on the book's sentence stacked twice.
void BM_BookMultiHead(benchmark::State& state) {
    attn::AttentionConfig cfg = multi_head(2, 2);
    cfg.batch = 2;
    const attn::AttentionModule module = attn::build_attention(3, cfg);
    for (auto _ : state) benchmark::DoNotOptimize(attn::forward(module, attn::book_inputs(), nullptr));
}
BENCHMARK(BM_BookMultiHead)->Unit(benchmark::kMicrosecond);

// MultiHeadAttention(768, 768, T, 0.0, num_heads=12) on one sequence of T tokens.
void BM_MultiHead768(benchmark::State& state) {
    const auto T = static_cast<int>(state.range(0));
    const attn::AttentionModule module = attn::build_attention(768, multi_head(768, 12));
    attn::TorchGenerator gen(1);
    const attn::Matrix x = attn::torch_rand(gen, T, 768);
    for (auto _ : state) benchmark::DoNotOptimize(attn::forward(module, x, nullptr));
}
BENCHMARK(BM_MultiHead768)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// What a seed slider change costs: torch.manual_seed(s); build
// MultiHeadAttention(768, 768, 256, 0.1, num_heads=12) and run it in training mode.
void BM_SeedChange768(benchmark::State& state) {
    attn::AttentionConfig cfg = multi_head(768, 12);
    cfg.dropout = 0.1;
    attn::TorchGenerator gen(1);
    const attn::Matrix x = attn::torch_rand(gen, 256, 768);
    for (auto _ : state) {
        ++cfg.seed;
        benchmark::DoNotOptimize(attn::run_attention(x, nullptr, cfg));
    }
}
BENCHMARK(BM_SeedChange768)->Unit(benchmark::kMillisecond)->UseRealTime();

// torch.manual_seed(123); nn.Embedding(50257, 768): the full table, every row.
void BM_EmbeddingTable(benchmark::State& state) {
    for (auto _ : state) {
        attn::TorchGenerator gen(123);
        benchmark::DoNotOptimize(attn::torch_normal(gen, 50257, 768));
    }
}
BENCHMARK(BM_EmbeddingTable)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
    attn::keep_freed_memory_mapped();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
