#!/usr/bin/python3
"""Writes small random Llama-family checkpoints in Hugging Face's layout and what PyTorch
computes from them: tests/golden/llama/NAME/ (config.json, model.safetensors or shards
with model.safetensors.index.json) and tests/golden/llama_golden.json.

Run with Debian's torch (python3-torch 1.13):  /usr/bin/python3 tests/golden/make_llama_golden.py

The models (scripts/llama_family.py: transformers' Llama, Qwen2 and Qwen3 in float32) are seeded
and written in one dtype each; the golden data comes from the files as written (F16 and
BF16 widened to float32), as the C++ reads them. They cover: Llama 3's rope_scaling
("llama3") with a tied head, in BF16; Qwen2.5's q/k/v bias with its own lm_head, in F16,
in two shards; Qwen3's q_norm/k_norm with a head_dim that is not hidden_size / heads and
one key/value head, in F32; a plain Llama without scaling, heads = key/value heads.
Entries per model: the token ids; every layer's and head's attention weights; one layer's
head's every stage; the last position's logits and torch.topk(softmax(logits), 10).
"""
import json
import os
import shutil
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from gpt2_safetensors import read_safetensors, write_safetensors  # noqa: E402
from llama_family import LlamaFamily  # noqa: E402

torch.set_num_threads(1)
OUT_DIR = os.path.join(HERE, "llama")
OUT = os.path.join(HERE, "llama_golden.json")


def config(model_type, **over):
    c = {"model_type": model_type, "architectures": [], "hidden_size": 32, "num_attention_heads": 4,
         "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 48, "num_hidden_layers": 2,
         "vocab_size": 96, "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
         "rope_scaling": None, "tie_word_embeddings": False, "torch_dtype": "float32"}
    c.update(over)
    c["architectures"] = [{"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM",
                           "qwen3": "Qwen3ForCausalLM"}[model_type]]
    return c


MODELS = [
    ("llama3-scaled-tied-bf16", "BF16", 1, 301,
     config("llama", rope_theta=500000.0, tie_word_embeddings=True, torch_dtype="bfloat16",
            rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 8192})),
    ("qwen2-bias-f16-shards", "F16", 2, 302,
     config("qwen2", rope_theta=1000000.0, num_hidden_layers=3, torch_dtype="float16")),
    ("qwen3-qknorm-mqa-f32", "F32", 1, 303,
     config("qwen3", rope_theta=1000000.0, head_dim=16, num_key_value_heads=1, tie_word_embeddings=True,
            rms_norm_eps=1e-6)),
    ("llama-plain-f32", "F32", 1, 304, config("llama", num_key_value_heads=4, intermediate_size=40)),
]
IDS_LENGTH = 9


def save(model, cfg, dtype, shards, folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    tensors = {name: t.detach().float().numpy() for name, t in model.state_dict_hf().items()}
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors, dtype=dtype)
        return [os.path.join(folder, "model.safetensors")]
    names = list(tensors)
    files, weight_map = [], {}
    for s in range(shards):
        part = names[s * len(names) // shards:(s + 1) * len(names) // shards]
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(os.path.join(folder, file), {n: tensors[n] for n in part}, dtype=dtype)
        weight_map.update({n: file for n in part})
        files.append(os.path.join(folder, file))
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)
    return files


def plain(t):
    t = t.detach()
    rows = (t.unsqueeze(0) if t.dim() == 1 else t).tolist()
    return [[None if v == float("-inf") else v for v in row] for row in rows]


def main():
    entries = []
    for name, dtype, shards, seed, cfg in MODELS:
        torch.manual_seed(seed)
        model = LlamaFamily(cfg).eval()
        files = save(model, cfg, dtype, shards, os.path.join(OUT_DIR, name))
        read = {}
        for file in files:  # the weights as written: F16/BF16 widened back to float32
            read.update(read_safetensors(file)[0])
        model.load_hf(read)
        ids = torch.randint(0, cfg["vocab_size"], (IDS_LENGTH,), generator=torch.Generator().manual_seed(seed)).tolist()
        layer, head = cfg["num_hidden_layers"] - 1, cfg["num_attention_heads"] - 1
        with torch.no_grad():
            logits = model(ids, stages_of=(layer, head))
        probs = torch.softmax(logits[-1], dim=-1)
        top = torch.topk(probs, 10)
        entries.append({
            "name": name, "dtype": dtype, "token_ids": ids,
            "weights": [[plain(w[h]) for h in range(w.shape[0])] for w in model.weights],
            "stages_of": {"layer": layer, "head": head, "stages": {k: plain(v) for k, v in model.stages.items()}},
            "last_logits": plain(logits[-1])[0],
            "top": {"ids": top.indices.tolist(), "probs": top.values.tolist()},
        })
        print(f"{name}: {dtype}, {len(files)} file(s), top id {top.indices[0].item()} p={top.values[0].item():.4f}")
    with open(OUT, "w") as f:
        json.dump({"generator": "tests/golden/make_llama_golden.py", "torch": torch.__version__, "models": entries}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
