#!/usr/bin/python3
"""Writes tests/golden/sampling_golden.json: chapter 5's generate (top-k, temperature,
torch.multinomial; scripts/book_gpt.py) after torch.manual_seed(seed), as PyTorch draws it.

Run with Debian's torch (python3-torch 1.13):  /usr/bin/python3 tests/golden/make_sampling_golden.py

Entries:
  "exponential": torch.manual_seed(seed); torch.empty(n).exponential_(1), float32: the
                 draws torch.multinomial(probs, 1) makes (torch 1.13's CPU path for one
                 sample: argmax(probs / q), q = empty_like(probs).exponential_(1)).
  "multinomial": torch.manual_seed(seed); w = torch.rand(1, V); ids of consecutive
                 torch.multinomial(w, 1), then torch.rand(1): where the stream stands after.
                 Weights from torch.rand so that the C++ side has them exactly.
  "gpt_ch4":     GPT_CONFIG_124M after torch.manual_seed(123) (attnscope's gpt-ch4), with the
                 book's own call: "Every effort moves you", 15 tokens, top_k=25,
                 temperature=1.4, seed 123.
  "checkpoint":  tests/golden/checkpoints/f32-config (context 16): generation past the
                 context, where the window moves on.
The shipped model's sampled ids live in checkpoint_golden.json ("shipped"), written by
make_checkpoint_golden.py with sampled_runs below: one command follows a retrained model.
"""
import json
import os

import torch

from gpt_modules import GPTModel, generate, generate_text_simple
import gpt2_bpe  # scripts/, on the path through gpt_modules
from gpt2_safetensors import load_weights_into_gpt, read_safetensors

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "sampling_golden.json")
BOOK_TEXT = "Every effort moves you"  # chapter 5's prompt
BOOK_PRINTED = [15496, 11, 314, 716, 27018, 24086, 47843, 30961, 42348, 7267]  # chapter 4's greedy ids


@torch.no_grad()
def first_draw(model, context, ids, temperature, top_k):
    """The 10 most probable tokens after `ids` (softmax of the last logits), each with the
    chance generate's first step draws it: its own top-k filter, division and softmax."""
    logits = model(torch.tensor([ids[-context:]]))[:, -1, :]
    plain = torch.softmax(logits, dim=-1)[0]
    if top_k is not None:  # generate's lines, as book_gpt.py writes them
        top_logits, _ = torch.topk(logits, top_k)
        min_val = top_logits[:, -1]
        logits = torch.where(logits < min_val, torch.tensor(float("-inf")), logits)
    drawn = torch.softmax(logits / temperature, dim=-1)[0]
    return [{"id": i, "prob": plain[i].item(), "sampled_prob": drawn[i].item()}
            for i in torch.topk(plain, 10).indices.tolist()]


def sampled_runs(model, context, runs):
    """generate's ids for each (text or ids, seed, temperature, top_k, new tokens); for a
    sampled run also "next_token", what its first step draws from (first_draw)."""
    model.eval()
    out = []
    for r in runs:
        ids = r["ids"] if "ids" in r else gpt2_bpe.Encoder().encode(r["text"])
        torch.manual_seed(r["seed"])
        got = generate(model, torch.tensor([ids]), r["new_tokens"], context, temperature=r["temperature"],
                       top_k=r.get("top_k"))[0].tolist()
        out.append({"text": r.get("text"), "ids": ids, "seed": r["seed"], "temperature": r["temperature"],
                    "top_k": r.get("top_k"), "new_tokens": r["new_tokens"], "generated": got[len(ids):]})
        if r["temperature"] > 0:
            out[-1]["next_token"] = first_draw(model, context, ids, r["temperature"], r.get("top_k"))
    return out


def exponential_draws():
    out = []
    for seed, n in ((123, 64), (7, 5000)):
        torch.manual_seed(seed)
        out.append({"seed": seed, "values": torch.empty(n).exponential_(1).tolist()})
    return out


def multinomial_draws():
    out = []
    for seed, vocab in ((123, 7), (5, 97), (2024, 50257)):
        torch.manual_seed(seed)
        w = torch.rand(1, vocab)
        ids = [torch.multinomial(w, 1).item() for _ in range(6)]
        out.append({"seed": seed, "vocab": vocab, "ids": ids, "rand_after": torch.rand(1).item()})
    return out


def gpt_ch4():
    cfg = {"vocab_size": 50257, "context_length": 1024, "emb_dim": 768, "n_heads": 12, "n_layers": 12,
           "drop_rate": 0.1, "qkv_bias": False}
    torch.manual_seed(123)
    model = GPTModel(cfg)
    model.eval()
    greedy = generate_text_simple(model, torch.tensor([BOOK_PRINTED[:4]]), 6, cfg["context_length"])[0].tolist()
    assert greedy == BOOK_PRINTED, f"the seeded model gives {greedy}, the book prints {BOOK_PRINTED}"
    return {"weights_seed": 123, "runs": sampled_runs(model, cfg["context_length"], [
        dict(text=BOOK_TEXT, seed=123, temperature=1.4, top_k=25, new_tokens=15),  # the book's call
        dict(text="Hello, I am", seed=5, temperature=0.5, new_tokens=6),
    ])}


def checkpoint():
    folder = os.path.join(HERE, "checkpoints", "f32-config")
    with open(os.path.join(folder, "config.json")) as f:
        c = json.load(f)
    cfg = {"vocab_size": c["vocab_size"], "context_length": c["n_positions"], "emb_dim": c["n_embd"],
           "n_heads": c["n_head"], "n_layers": c["n_layer"], "drop_rate": 0.0, "qkv_bias": True}
    params, _ = read_safetensors(os.path.join(folder, "model.safetensors"))
    model = GPTModel(cfg)
    load_weights_into_gpt(model, params)
    ids = torch.randint(0, cfg["vocab_size"], (10,), generator=torch.Generator().manual_seed(31)).tolist()
    return {"file": os.path.relpath(folder, HERE), "runs": sampled_runs(model, cfg["context_length"], [
        dict(ids=ids, seed=3, temperature=1.0, new_tokens=12),  # 22 tokens: the window moves 6 times
        dict(ids=ids, seed=4, temperature=0.8, top_k=10, new_tokens=12),
        dict(ids=ids, seed=5, temperature=100.0, top_k=cfg["vocab_size"], new_tokens=8),  # the largest of both
    ])}


def main():
    golden = {"torch": torch.__version__, "exponential": exponential_draws(), "multinomial": multinomial_draws(),
              "gpt_ch4": gpt_ch4(), "checkpoint": checkpoint()}
    with open(OUT, "w") as f:
        json.dump(golden, f)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
