#!/usr/bin/python3
"""Writes GPT-2-shaped checkpoints in Hugging Face's safetensors layout and what PyTorch
computes from them: tests/golden/checkpoints/NAME/model.safetensors (+ config.json) and
tests/golden/checkpoint_golden.json.

Run with Debian's torch (python3-torch 1.13):  /usr/bin/python3 tests/golden/make_checkpoint_golden.py

Each checkpoint is random (seeded) and written in one dtype; the golden data comes from the
file as written: read back (F16/BF16 widened to float32) and loaded into the book's
GPTModel as chapter 5 does (scripts/gpt2_safetensors.py: load_weights_into_gpt), then run
in evaluation mode. The checkpoints cover what real files hold: F32, F16 and BF16; names
with and without "transformer."; a tied lm_head.weight, an untied one, none; GPT-2's
attn.bias / masked_bias buffers; n_head from config.json, from __metadata__, or 64-wide.
Entries per checkpoint: token ids; every layer's and head's attention weights; the logits;
torch.topk(softmax(last logits), 10); 3 greedy tokens; every stage of one layer's head.

"shipped": the model attnscope ships (assets/models/sotu-small, read as it is), on an
English sentence tokenized by scripts/gpt2_bpe.py: every layer's and head's weights, the
top 10 next tokens, 5 greedy tokens; "sampled": chapter 5's generate after
torch.manual_seed(seed) for a few (text, seed, temperature, top_k), the book's own call
among them (make_sampling_golden.py's sampled_runs). A retrained model: run this again.
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from gpt2_safetensors import gpt2_tensors, load_weights_into_gpt, read_safetensors, write_safetensors  # noqa: E402
from gpt_modules import GPTModel, generate_text_simple  # noqa: E402
import gpt2_bpe  # noqa: E402
from make_sampling_golden import BOOK_TEXT, sampled_runs  # noqa: E402

torch.set_num_threads(1)
OUT_DIR = os.path.join(HERE, "checkpoints")
OUT = os.path.join(HERE, "checkpoint_golden.json")
SHIPPED = os.path.join(HERE, "..", "..", "assets", "models", "sotu-small")
SHIPPED_TEXT = "The state of the Union is strong. The state of the Union is"
SHIPPED_SAMPLED = [
    dict(text=BOOK_TEXT, seed=123, temperature=1.4, top_k=25, new_tokens=15),  # the book's call
    dict(text=SHIPPED_TEXT, seed=123, temperature=1.0, new_tokens=10),
    dict(text=SHIPPED_TEXT, seed=7, temperature=0.7, top_k=5, new_tokens=10),
    dict(text=BOOK_TEXT, seed=2024, temperature=3.0, new_tokens=10),
    dict(text=BOOK_TEXT, seed=123, temperature=0.0, top_k=25, new_tokens=5),  # top-k changes no argmax
]
STAGES = ["W_query", "W_key", "W_value", "b_query", "b_key", "b_value", "queries", "keys", "values", "scores",
          "scaled_scores", "masked_scores", "weights", "context"]


def plain(t):
    """Nested lists, vectors as one row (as the engine holds them), -inf as None (JSON has no infinity)."""
    t = t.detach()
    rows = (t.unsqueeze(0) if t.dim() == 1 else t).tolist()
    return [[None if v == float("-inf") else v for v in row] for row in rows]


def book_config(c):
    return {"vocab_size": c["vocab"], "context_length": c["ctx"], "emb_dim": c["d"], "n_heads": c["heads"],
            "n_layers": c["layers"], "drop_rate": 0.0, "qkv_bias": True}


def random_tensors(c):
    """A seeded GPTModel's weights in GPT-2's layout, LayerNorms and embeddings varied so
    that a swapped scale/shift or a transposed matrix cannot pass."""
    torch.manual_seed(c["seed"])
    model = GPTModel(book_config(c))
    t = gpt2_tensors(model)
    g = torch.Generator().manual_seed(c["seed"] + 1)
    for name in t:
        if "ln_" in name:
            base = 1.0 if name.endswith("weight") else 0.0
            t[name] = base + 0.2 * torch.randn(t[name].shape, generator=g)
    t["wte.weight"] = 0.3 * t["wte.weight"]
    return t


def write_checkpoint(c):
    folder = os.path.join(OUT_DIR, c["name"])
    os.makedirs(folder, exist_ok=True)
    t = random_tensors(c)
    prefix = c.get("prefix", "")
    named = {prefix + k: v for k, v in t.items()}
    dtypes = {}
    for i in range(c["layers"]) if c.get("buffers") else []:  # GPT-2's mask buffers
        named[f"{prefix}h.{i}.attn.bias"] = torch.tril(torch.ones(c["ctx"], c["ctx"])).view(1, 1, c["ctx"], c["ctx"])
        named[f"{prefix}h.{i}.attn.masked_bias"] = torch.tensor(-1e4)
        dtypes[f"{prefix}h.{i}.attn.bias"] = dtypes[f"{prefix}h.{i}.attn.masked_bias"] = "F32"
    if c.get("lm_head") == "tied":
        named["lm_head.weight"] = t["wte.weight"]
    elif c.get("lm_head") == "own":
        named["lm_head.weight"] = 0.3 * torch.randn(t["wte.weight"].shape, generator=torch.Generator().manual_seed(9))
    metadata = {"format": "pt"} | ({"n_head": c["heads"]} if c.get("heads_from") == "__metadata__" else {})
    write_safetensors(os.path.join(folder, "model.safetensors"), named, c["dtype"], metadata, dtypes)
    config_path = os.path.join(folder, "config.json")
    if c.get("heads_from") == "config.json":
        with open(config_path, "w") as f:
            json.dump({"model_type": "gpt2", "vocab_size": c["vocab"], "n_positions": c["ctx"], "n_ctx": c["ctx"],
                       "n_embd": c["d"], "n_layer": c["layers"], "n_head": c["heads"], "layer_norm_epsilon": 1e-5,
                       "activation_function": "gelu_new"}, f, indent=1)
    elif os.path.exists(config_path):
        os.remove(config_path)
    return os.path.join(folder, "model.safetensors")


def golden_for(c, path):
    params, _ = read_safetensors(path)
    model = GPTModel(book_config(c))
    load_weights_into_gpt(model, params, c.get("prefix", ""))
    model.eval()
    g = torch.Generator().manual_seed(c["seed"] + 2)
    ids = torch.randint(0, c["vocab"], (c["tokens"],), generator=g).tolist()
    with torch.no_grad():
        logits = model(torch.tensor([ids]))
        inputs = [model.tok_emb(torch.tensor(ids)) + model.pos_emb(torch.arange(len(ids)))] + \
            [out[0] for out in model.block_outputs[:-1]]
    layers = [{"weights": [plain(rec["weights"]) for rec in b.att.head_recs]} for b in model.trf_blocks]
    L, H = c["detail"]
    block = model.trf_blocks[L]
    rec = block.att.head_recs[H]
    detail = {"layer": L, "head": H, "inputs": plain(inputs[L]), "normed1": plain(block.norm1(inputs[L])),
              "residual1": plain(block.residual1[0]), "outputs": plain(model.block_outputs[L][0]),
              "W_out": plain(rec["W_out"]), "b_out": plain(rec["b_out"])} | {s: plain(rec[s]) for s in STAGES}
    top = torch.topk(torch.softmax(logits[0, -1], dim=-1), 10)
    generated = generate_text_simple(model, torch.tensor([ids]), 3, c["ctx"])[0].tolist()
    return {"name": c["name"], "dtype": c["dtype"], "file": os.path.relpath(path, HERE),
            "config": {k: c[k] for k in ("vocab", "ctx", "d", "heads", "layers")},
            "ids": ids, "layers": layers, "logits": plain(logits[0]), "detail": detail, "generated": generated,
            "next_token": [{"id": i, "prob": p} for i, p in zip(top.indices.tolist(), top.values.tolist())]}


CHECKPOINTS = [
    dict(name="f32-config", dtype="F32", seed=11, vocab=97, ctx=16, d=32, heads=4, layers=2, tokens=10,
         heads_from="config.json", detail=(1, 2)),
    dict(name="f16-prefixed", dtype="F16", seed=12, vocab=64, ctx=12, d=24, heads=3, layers=3, tokens=12,
         prefix="transformer.", buffers=True, lm_head="tied", heads_from="__metadata__", detail=(2, 0)),
    dict(name="bf16-64wide", dtype="BF16", seed=13, vocab=50, ctx=8, d=128, heads=2, layers=1, tokens=7,
         lm_head="own", detail=(0, 1)),
]


def shipped_golden():
    with open(os.path.join(SHIPPED, "config.json")) as f:
        config = json.load(f)
    cfg = {"vocab_size": config["vocab_size"], "context_length": config["n_positions"], "emb_dim": config["n_embd"],
           "n_heads": config["n_head"], "n_layers": config["n_layer"], "drop_rate": 0.0, "qkv_bias": True}
    params, _ = read_safetensors(os.path.join(SHIPPED, "model.safetensors"))
    model = GPTModel(cfg)
    load_weights_into_gpt(model, params)
    model.eval()
    ids = gpt2_bpe.Encoder().encode(SHIPPED_TEXT)
    with torch.no_grad():
        logits = model(torch.tensor([ids]))
    top = torch.topk(torch.softmax(logits[0, -1], dim=-1), 10)
    return {"text": SHIPPED_TEXT, "ids": ids, "config": cfg,
            "layers": [{"weights": [plain(rec["weights"]) for rec in b.att.head_recs]} for b in model.trf_blocks],
            "next_token": [{"id": i, "prob": p} for i, p in zip(top.indices.tolist(), top.values.tolist())],
            "generated": generate_text_simple(model, torch.tensor([ids]), 5, cfg["context_length"])[0].tolist(),
            "sampled": sampled_runs(model, cfg["context_length"], SHIPPED_SAMPLED)}


def main():
    golden = [golden_for(c, write_checkpoint(c)) for c in CHECKPOINTS]
    with open(OUT, "w") as f:
        json.dump({"torch": torch.__version__, "checkpoints": golden, "shipped": shipped_golden()}, f)
    print("wrote", OUT, "and", len(golden), "checkpoints in", OUT_DIR)


if __name__ == "__main__":
    main()
