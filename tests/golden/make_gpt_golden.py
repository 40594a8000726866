#!/usr/bin/python3
"""Writes tests/golden/gpt_golden.json: chapter 4's GPTModel, seeded and untrained, as
PyTorch computes it (the book's classes in gpt_modules.py, evaluation mode).

Run with Debian's torch (python3-torch 1.13):  /usr/bin/python3 tests/golden/make_gpt_golden.py

Entries:
  "models": small GPT configurations, each with its seed, token ids, every block's output,
            every layer's and head's attention weights, the logits, and generate_text_simple's
            ids (with a crop when the context is full).
  "book":   GPT_CONFIG_124M after torch.manual_seed(123), "Hello, I am" and 6 new tokens: the
            ids the book prints, [15496, 11, 314, 716, 27018, 24086, 47843, 30961, 42348, 7267].
Each small model also has "next_token": torch.topk(torch.softmax(last logits), 10).
"""
import json
import os

import torch

from gpt_modules import GPTModel, generate_text_simple

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "gpt_golden.json")

BOOK_IDS = [15496, 11, 314, 716]  # tiktoken gpt2 of "Hello, I am"
BOOK_PRINTED = [15496, 11, 314, 716, 27018, 24086, 47843, 30961, 42348, 7267]


def plain(t):
    return t.detach().tolist()


def small_model(name, seed, ids, new_tokens, **cfg):
    torch.manual_seed(seed)
    model = GPTModel(cfg)
    model.eval()
    with torch.no_grad():
        logits = model(torch.tensor([ids]))
    layers = [{"residual1": plain(b.residual1[0]), "outputs": plain(out[0]),
               "weights": [plain(rec["weights"]) for rec in b.att.head_recs]}
              for b, out in zip(model.trf_blocks, model.block_outputs)]
    generated = generate_text_simple(model, torch.tensor([ids]), new_tokens, cfg["context_length"])[0].tolist()
    top = torch.topk(torch.softmax(logits[0, -1], dim=-1), 10)
    return {"name": name, "seed": seed, "config": cfg, "ids": ids, "layers": layers,
            "logits": plain(logits[0]), "generated": generated,
            "next_token": [{"id": i, "prob": p} for i, p in zip(top.indices.tolist(), top.values.tolist())]}


def main():
    g = torch.Generator().manual_seed(2024)
    models = [
        small_model("two layers, no qkv bias", 123, torch.randint(0, 64, (9,), generator=g).tolist(), 5,
                    vocab_size=64, context_length=16, emb_dim=32, n_heads=4, n_layers=2, drop_rate=0.1,
                    qkv_bias=False),
        # A full context: generation crops it to the last 12 tokens.
        small_model("three layers, qkv bias, full context", 7, torch.randint(0, 97, (12,), generator=g).tolist(), 4,
                    vocab_size=97, context_length=12, emb_dim=24, n_heads=3, n_layers=3, drop_rate=0.0,
                    qkv_bias=True),
        small_model("one head", 5, torch.randint(0, 50, (6,), generator=g).tolist(), 3,
                    vocab_size=50, context_length=8, emb_dim=16, n_heads=1, n_layers=1, drop_rate=0.1,
                    qkv_bias=False),
    ]
    torch.manual_seed(123)
    cfg = {"vocab_size": 50257, "context_length": 1024, "emb_dim": 768, "n_heads": 12, "n_layers": 12,
           "drop_rate": 0.1, "qkv_bias": False}
    model = GPTModel(cfg)
    model.eval()
    out = generate_text_simple(model, torch.tensor([BOOK_IDS]), 6, cfg["context_length"])[0].tolist()
    assert out == BOOK_PRINTED, f"torch gives {out}, the book prints {BOOK_PRINTED}"
    with open(OUT, "w") as f:
        json.dump({"torch": torch.__version__, "models": models,
                   "book": {"config": cfg, "seed": 123, "ids": BOOK_IDS, "generated": out}}, f)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
