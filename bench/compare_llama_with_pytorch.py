#!/usr/bin/python3
"""attnscope's Llama-family forward against PyTorch's, same machine, same run, same threads.

usage: bench/compare_llama_with_pytorch.py [BUILD_DIR] [--threads N] [--keep-models]

Two models with random weights in the shapes issue 36 names, written once into
BUILD_DIR/bench-llama/ in Hugging Face's layout (config.json, model.safetensors, BF16 as
both are published):
  smollm2-135m-shaped  30 layers, d 576, 9 heads, 3 key/value heads, MLP 1536, vocabulary
                       49152, tied head  (SmolLM2-135M's config)
  llama-3.2-1b-shaped  16 layers, d 2048, 32 heads, 8 key/value heads, MLP 8192,
                       vocabulary 128256, tied head, rope_scaling llama3 (Llama-3.2-1B's)
attnscope: bench/llama_bench.cpp, the forward as its CLI runs it (the weights
memory-mapped, each layer converted to float32 when it runs, every head's weights kept,
the last position's logits only), one more token through its KV cache, and its peak
resident memory. PyTorch:
scripts/llama_family.py's LlamaFamily (transformers' computation in float32, the
weights in memory as float32, the logits of every position as a causal LM's forward
gives them), in a child process as the fair peer (peer.fair_peer_envs: glibc keeping its
freed memory; at two or more threads the faster of OpenMP's idle threads spinning or sleeping).
attnscope's peak resident memory is the benchmark process's (the mapped file's pages it
touched included). Without --keep-models the 3 GB of files are removed afterwards.
"""
import argparse
import json
import os
import shutil
import sys

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("build_dir", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "build"))
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--keep-models", action="store_true", help="leave the written models in BUILD_DIR/bench-llama")
parser.add_argument("--models", default="smollm2-135m-shaped,llama-3.2-1b-shaped", help="which, comma-separated")
parser.add_argument("--peer-only", help=argparse.SUPPRESS)  # the child: PyTorch's times for one model, as JSON
args = parser.parse_args()
os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
os.environ["OMP_NUM_THREADS"] = str(args.threads)

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "golden"))
from peer import (OPTIMISED_BLAS, blas_in_use, cpu_description, engine_run, fair_peer_description,  # noqa: E402
                  fmt, median_seconds, peer_run_times)
from gpt2_safetensors import read_safetensors, write_safetensors  # noqa: E402
from llama_family import LlamaFamily  # noqa: E402

LLAMA3_SCALING = {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 8192}
MODELS = {  # name: (config, token counts)
    "smollm2-135m-shaped": (dict(hidden_size=576, num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
                                 head_dim=64, intermediate_size=1536, vocab_size=49152, rope_theta=100000.0,
                                 max_position_embeddings=8192, rms_norm_eps=1e-5, rope_scaling=None), (64, 256)),
    "llama-3.2-1b-shaped": (dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
                                 head_dim=64, intermediate_size=8192, vocab_size=128256, rope_theta=500000.0,
                                 max_position_embeddings=131072, rms_norm_eps=1e-5, rope_scaling=LLAMA3_SCALING),
                            (64,)),
}


def config(name):
    c = dict(MODELS[name][0], model_type="llama", architectures=["LlamaForCausalLM"], tie_word_embeddings=True,
             torch_dtype="bfloat16")
    return c


def some_ids(n, vocab):  # llama_bench.cpp's
    return [(i * 7919 + 13) % vocab for i in range(n)]


def write_model(name, folder):
    """Random weights (seeded) in the model's shapes, saved as BF16 safetensors."""
    if os.path.exists(os.path.join(folder, "model.safetensors")):
        return
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(36)
    with torch.no_grad():
        model = LlamaFamily(config(name))
        tensors = {k: v.detach() for k, v in model.state_dict_hf().items()}
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors, dtype="BF16")
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config(name), f, indent=2)


def pytorch_times(name, folder):
    """LlamaFamily loaded with the file's weights (BF16 widened to float32), forward only."""
    cfg = config(name)
    model = LlamaFamily(cfg).eval()
    model.load_hf(read_safetensors(os.path.join(folder, "model.safetensors"))[0])
    out = {}
    with torch.no_grad():
        for T in MODELS[name][1]:
            ids = some_ids(T, cfg["vocab_size"])
            out[str(T)] = median_seconds(lambda: model(ids), min_runs=3)
    return out


def engine_times(folder):
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), ATTNSCOPE_LLAMA_BENCH=folder)
    sizes = "|".join(str(T) for T in MODELS[os.path.basename(folder)][1])
    command = [os.path.join(args.build_dir, "llama_bench"), f"--benchmark_filter=BM_Llama(Forward|CachedToken)/({sizes})/"]
    # the warm-up faults the file in; a 1B-shaped forward takes seconds
    times, runs, context = engine_run(command, env, min_time=2)
    # "64": the forward's (seconds, peak RSS); "cached 64": one more token after 64
    return {("cached " if "Cached" in name else "") + name.split("/")[1]: (seconds, runs[name]["peak_rss_mb"])
            for name, seconds in times.items()}, context.get("blas", "?")


def main():
    torch.set_num_threads(args.threads)
    root = os.path.join(args.build_dir, "bench-llama")
    if args.peer_only:
        print(json.dumps(pytorch_times(args.peer_only, os.path.join(root, args.peer_only))))
        return 0
    blas = blas_in_use()
    if not OPTIMISED_BLAS.search(blas):
        print(f"compare_llama_with_pytorch.py: PyTorch multiplies with {blas}, not an optimised BLAS", file=sys.stderr)
        return 2
    print(f"machine: {cpu_description()}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")
    print(f"threads: {args.threads} (both); torch {torch.__version__} multiplying with {blas}")
    print("PyTorch: LlamaFamily (scripts/llama_family.py), float32 weights in memory, every position's "
          f"logits; {fair_peer_description(args.threads)}")
    print("attnscope: the BF16 file memory-mapped, a layer converted when it runs, every head's weights kept, "
          "the last position's logits")
    print(f"{'workload':<34}{'attnscope':>12}{'PyTorch':>12}{'speed-up':>10}{'attnscope peak RSS':>20}")
    try:
        for name in args.models.split(","):
            folder = os.path.join(root, name)
            write_model(name, folder)
            ours, engine_blas = engine_times(folder)
            child = [sys.executable, os.path.abspath(__file__), args.build_dir, "--threads", str(args.threads),
                     "--peer-only", name]
            theirs = peer_run_times(child, args.threads)
            for T in MODELS[name][1]:
                seconds, rss = ours[str(T)]
                print(f"{f'{name} T={T}':<34}{fmt(seconds):>12}{fmt(theirs[str(T)]):>12}"
                      f"{theirs[str(T)] / seconds:>9.2f}x{rss:>17.0f} MB")
                cached = ours[f"cached {T}"][0]
                print(f"{'  one more token from the cache':<34}{fmt(cached):>12}{'':>12}"
                      f"{seconds / cached:>9.1f}x cheaper than attnscope's full forward")
        print(f"attnscope's BLAS: {engine_blas}")
    finally:
        if not args.keep_models:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
