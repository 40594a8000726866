// The engine's speed on the reference workloads: the book's multi-head example
// (every stage recorded), T = 256 ... 8192 with d = 768 and 12 heads keeping what the
// app's views need (every head's weights and values, every stage of the head on
// screen) or only the output (attnscope-cli --stages output), a seed change, and
// building nn.Embedding(50257, 768). bench/compare_with_pytorch.py runs PyTorch on the
// same work in the same run and prints the ratios. Threads: OMP_NUM_THREADS.
#include <benchmark/benchmark.h>

#include "numerics/blas_kernels.h"
#include "attention/attention.h"
#include "attention/embedding.h"
#include "numerics/gemm.h"
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

// What the app keeps of a run: every head's weights (its overview) and values (what a
// dropout change reruns from), and every stage of the head on screen.
attn::KeptStages app_view() { return attn::KeptStages::overview_and(0); }

// MultiHeadAttention(768, 768, T, 0.0, num_heads=12) on one sequence of T tokens.
void multi_head_768(benchmark::State& state, const attn::KeptStages& keep) {
    const auto T = static_cast<int>(state.range(0));
    const attn::AttentionModule module = attn::build_attention(768, multi_head(768, 12));
    attn::TorchGenerator gen(1);
    const attn::Matrix x = attn::torch_rand(gen, T, 768);
    for (auto _ : state) benchmark::DoNotOptimize(attn::forward(module, x, nullptr, keep));
}
void BM_MultiHead768(benchmark::State& state) { multi_head_768(state, app_view()); }
void BM_MultiHead768Output(benchmark::State& state) { multi_head_768(state, attn::KeptStages::only({})); }
BENCHMARK(BM_MultiHead768)->Arg(256)->Arg(1024)->Arg(4096)->Arg(8192)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MultiHead768Output)->Arg(256)->Arg(1024)->Arg(4096)->Arg(8192)->Unit(benchmark::kMillisecond)->UseRealTime();

// Today's variants at the same sizes (issue 12): GroupedQueryAttention(768, 768, 0.0,
// num_heads=12, num_kv_groups=4) and MultiHeadAttentionWithSWA(..., sliding_window_size=128),
// keeping what the app's views need.
void variant_768(benchmark::State& state, attn::Variant v) {
    const auto T = static_cast<int>(state.range(0));
    attn::AttentionConfig cfg = multi_head(768, 12);
    cfg.variant = v;
    cfg.kv_groups = 4;
    cfg.window = 128;
    const attn::AttentionModule module = attn::build_attention(768, cfg);
    attn::TorchGenerator gen(1);
    const attn::Matrix x = attn::torch_rand(gen, T, 768);
    for (auto _ : state) benchmark::DoNotOptimize(attn::forward(module, x, nullptr, app_view()));
}
void BM_Gqa768(benchmark::State& state) { variant_768(state, attn::Variant::Gqa); }
void BM_Swa768(benchmark::State& state) { variant_768(state, attn::Variant::Swa); }
BENCHMARK(BM_Gqa768)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Swa768)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// What a seed slider change costs: torch.manual_seed(s); build
// MultiHeadAttention(768, 768, 256, 0.1, num_heads=12) and run it in training mode.
void BM_SeedChange768(benchmark::State& state) {
    attn::AttentionConfig cfg = multi_head(768, 12);
    cfg.dropout = 0.1;
    attn::TorchGenerator gen(1);
    const attn::Matrix x = attn::torch_rand(gen, 256, 768);
    for (auto _ : state) {
        ++cfg.seed;
        benchmark::DoNotOptimize(attn::run_attention(x, nullptr, cfg, app_view()));
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
    attn::choose_blas_kernels(argv);
    attn::keep_freed_memory_mapped();
    benchmark::Initialize(&argc, argv);
    benchmark::AddCustomContext("blas", attn::blas_description());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
