#!/usr/bin/python3
"""Runs attnscope's engine benchmark and PyTorch on the same work, in the same run,
at the same number of threads, and prints the speed ratios.

usage: bench/compare_with_pytorch.py [BUILD_DIR] [--threads N]

PyTorch side: the seed documents' MultiHeadAttention class, forward only (the module
already built, as the engine's benchmark does); a seed change (build the module with
dropout 0.1, then a training-mode forward, T = 256); and building nn.Embedding(50257, 768).
Needs Debian's python3-torch, and libopenblas0-pthread so that torch gets a real BLAS.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):  # 000, section 3.6.2
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


def median_seconds(fn, min_time=1.0, min_runs=3):
    fn()  # warm-up
    times, start = [], time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - start < min_time:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def pytorch_times():
    book = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                         [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
    out = {}
    with torch.no_grad():
        torch.manual_seed(123)
        mha = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
        batch = torch.stack((book, book))
        out["BM_BookMultiHead"] = median_seconds(lambda: mha(batch))
        for T in (256, 1024):
            torch.manual_seed(123)
            mha = MultiHeadAttention(768, 768, T, 0.0, num_heads=12)
            x = torch.rand(1, T, 768)
            out[f"BM_MultiHead768/{T}/real_time"] = median_seconds(lambda: mha(x))
        x = torch.rand(1, 256, 768)
        seed = [0]

        def seed_change():  # a new seed: build the module, then a training-mode forward
            seed[0] += 1
            torch.manual_seed(seed[0])
            MultiHeadAttention(768, 768, 256, 0.1, num_heads=12).train()(x)
        out["BM_SeedChange768/real_time"] = median_seconds(seed_change)
        out["BM_EmbeddingTable/real_time"] = median_seconds(lambda: nn.Embedding(50257, 768))
    return out


def engine_times(build_dir, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    result = subprocess.run([os.path.join(build_dir, "attention_bench"), "--benchmark_format=json",
                             "--benchmark_min_time=1"], env=env, capture_output=True, text=True, check=True)
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    return {b["name"]: b["real_time"] * unit[b["time_unit"]] for b in json.loads(result.stdout)["benchmarks"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    engine = engine_times(args.build_dir, args.threads)
    peer = pytorch_times()
    print(f"threads: {args.threads} (both); torch {torch.__version__}")
    print(f"{'workload':<34}{'attnscope':>14}{'PyTorch':>14}{'speed-up':>10}")
    labels = {"BM_BookMultiHead": "book example (3.6.2 MHA, batch 2)",
              "BM_MultiHead768/256/real_time": "mha T=256 d=768 12 heads",
              "BM_MultiHead768/1024/real_time": "mha T=1024 d=768 12 heads",
              "BM_SeedChange768/real_time": "seed change: build + forward T=256",
              "BM_EmbeddingTable/real_time": "nn.Embedding(50257, 768)"}
    for name, label in labels.items():
        ours, theirs = engine[name], peer[name]
        fmt = (lambda s: f"{s * 1e6:.1f} us") if theirs < 1e-3 else (lambda s: f"{s * 1e3:.1f} ms")
        print(f"{label:<34}{fmt(ours):>14}{fmt(theirs):>14}{theirs / ours:>9.1f}x")


if __name__ == "__main__":
    sys.exit(main())
