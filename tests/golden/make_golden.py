#!/usr/bin/python3
"""Writes tests/golden/golden.json: what attnscope-cli must print, computed by PyTorch.

Run with Debian's torch (python3-torch 1.13):  /usr/bin/python3 tests/golden/make_golden.py

The modules are copies of the seed documents' classes, in book_modules.py.  Nothing
here copies the C++ engine's logic: the numbers come from PyTorch running the book's
code.  The CLI's flags and defaults, its tokens and embedding stage and the JSON
conventions are in cli_conventions.py, shared with make_modern_golden.py.

Each entry: {"name", "args": [CLI flags], "expected": {the CLI's JSON object}}.
Floats are written with full precision (Python floats from tensor.tolist()); -inf is
written as null, as the CLI does.
"""
import os
import sys

import torch
import torch.nn as nn

from cli_conventions import (BOOK_TEXT, BOOK_GPT2_TEXT, BOOK_GPT2_IDS, CLI_DEFAULTS, cli_args, embed_inputs,
                             plain, text_of, write_golden)
from book_modules import (simplified_attention, SelfAttention_v1, SelfAttention_v2,
                          CausalAttention, MultiHeadAttentionWrapper, MultiHeadAttention,
                          SelfAttention, MultiHeadAttentionWrapper004, CrossAttention,
                          CrossAttentionWrapper)

torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "golden.json")

LIFE_TEXT = "Life is short, eat dessert first"  # 004's sentence


# ----------------------------------------------------------------------------------
# Configurations -> (args, expected)
# ----------------------------------------------------------------------------------
HEAD_KEYS = ["W_query", "W_key", "W_value", "b_query", "b_key", "b_value", "queries", "keys", "values",
             "scores", "scaled_scores", "mask", "masked_scores", "weights", "dropout_mask",
             "dropped_weights", "context", "W_out", "b_out"]


def make_config(name, variant, text=BOOK_TEXT, text2=None, seed=None, embed_seed=None, d_in=None,
                d_out=None, d_out_v=None, heads=None, dropout=None, qkv_bias=False, batch=None,
                pos=False, vocab_size=None, context_length=None, dropout_seed=None, causal=False,
                kv_len=None, embedding=None, eval_mode=False, gpt2_ids=None):
    args = cli_args(variant, text, text2, seed, embed_seed, d_in, d_out, d_out_v, heads, dropout, qkv_bias,
                    batch, pos, vocab_size, context_length, dropout_seed, causal, kv_len, embedding,
                    eval_mode, gpt2_ids)

    # The CLI's defaults (issue 2).
    seed = CLI_DEFAULTS["seed"] if seed is None else seed
    embed_seed = CLI_DEFAULTS["embed_seed"] if embed_seed is None else embed_seed
    d_in = CLI_DEFAULTS["d_in"] if d_in is None else d_in
    d_out = CLI_DEFAULTS["d_out"] if d_out is None else d_out
    d_out_v = d_out if d_out_v is None else d_out_v
    heads = CLI_DEFAULTS["heads"] if heads is None else heads
    dropout = CLI_DEFAULTS["dropout"] if dropout is None else dropout
    batch = CLI_DEFAULTS["batch"] if batch is None else batch
    kv_len = CLI_DEFAULTS["kv_len"] if kv_len is None else kv_len

    with torch.no_grad():
        expected = compute(variant, text, text2, seed, embed_seed, d_in, d_out, d_out_v, heads, dropout,
                           qkv_bias, batch, pos, vocab_size, context_length, dropout_seed, causal, kv_len,
                           embedding, eval_mode, gpt2_ids)
    return {"name": name, "args": args, "expected": expected}



def compute(variant, text, text2, seed, embed_seed, d_in, d_out, d_out_v, heads, dropout, qkv_bias,
            batch, pos, vocab_size, context_length, dropout_seed, causal, kv_len, embedding, eval_mode,
            gpt2_ids=None):
    out, x, batch_x, w2, ids2, embed_text = embed_inputs(variant, text, text2, embed_seed, d_in, batch, pos,
                                                         vocab_size, context_length, embedding, gpt2_ids)

    # --- module ---
    torch.manual_seed(seed)
    head_recs = None
    if variant == "simplified":
        context, rec = simplified_attention(x)
        outputs = torch.stack([context] * batch, dim=0)
        head_recs = [rec]
    elif variant in ("self-v1", "self-v2"):
        if variant == "self-v2":
            modules = [SelfAttention_v2(d_in, d_out, qkv_bias=qkv_bias)]
            wrapper = modules[0]
        elif heads == 1 and d_out_v == d_out:
            modules = [SelfAttention_v1(d_in, d_out)]
            wrapper = modules[0]
        else:
            wrapper = MultiHeadAttentionWrapper004(d_in, d_out, d_out_v, num_heads=heads)
            modules = list(wrapper.heads)
        for m in modules:
            m.causal = causal
        if dropout_seed is not None:
            torch.manual_seed(dropout_seed)
        # These classes take one (T, d_in) sequence: one forward per batch element.
        outputs = torch.stack([wrapper(batch_x[b]) for b in range(batch)], dim=0)
        assert torch.equal(wrapper(batch_x[0]), outputs[0])  # records now hold element 0
        head_recs = [m.rec for m in modules]
    elif variant == "cross":
        wrapper = CrossAttentionWrapper(d_in, d_out, d_out_v, num_heads=heads) if heads > 1 else \
            CrossAttention(d_in, d_out, d_out_v)
        modules = list(wrapper.heads) if heads > 1 else [wrapper]
        for m in modules:
            m.causal = causal
        if w2 is None:
            second_input = torch.rand(kv_len, d_in)  # 004: drawn right after the module
            x2 = second_input
        else:
            tok2, pos2, x2 = embed_text(ids2)
        out["inputs2"] = plain(x2)
        if dropout_seed is not None:
            torch.manual_seed(dropout_seed)
        outputs = torch.stack([wrapper(batch_x[b], x2) for b in range(batch)], dim=0)
        assert torch.equal(wrapper(batch_x[0], x2), outputs[0])
        head_recs = [m.rec for m in modules]
    elif variant == "causal":
        ca = CausalAttention(d_in, d_out, batch_x.shape[1], dropout, qkv_bias)
        if eval_mode:
            ca.eval()
        if dropout_seed is not None:
            torch.manual_seed(dropout_seed)
        outputs = ca(batch_x)
        head_recs = [ca.rec]
    elif variant == "mha-wrapper":
        mha = MultiHeadAttentionWrapper(d_in, d_out, batch_x.shape[1], dropout, num_heads=heads,
                                        qkv_bias=qkv_bias)
        if eval_mode:
            mha.eval()
        if dropout_seed is not None:
            torch.manual_seed(dropout_seed)
        outputs = mha(batch_x)
        head_recs = [h.rec for h in mha.heads]
        if heads > 1:
            out["concat"] = plain(outputs[0])
    elif variant == "mha":
        mha = MultiHeadAttention(d_in, d_out, batch_x.shape[1], dropout, num_heads=heads, qkv_bias=qkv_bias)
        if eval_mode:
            mha.eval()
        if dropout_seed is not None:
            torch.manual_seed(dropout_seed)
        outputs = mha(batch_x)
        head_recs = mha.head_recs
        out["W_out"] = plain(mha.rec["W_out"])
        out["b_out"] = plain(mha.rec["b_out"])
        out["concat"] = plain(mha.rec["concat"])
    else:
        raise ValueError(variant)

    if variant in ("self-v1", "cross") and heads > 1:
        out["concat"] = plain(outputs[0])  # torch.cat of the heads, batch element 0

    out["heads"] = [{k: plain(rec[k]) for k in HEAD_KEYS if k in rec} for rec in head_recs]
    out["output"] = plain(outputs)
    return out



def configs():
    C = make_config
    L = LIFE_TEXT
    yield C("book simplified", "simplified")
    # GPT-2's tokens (seed 003) into nn.Embedding(50257, d_in): issue 4's path to the inputs.
    yield C("gpt2 book sentence causal d_in 768 pos dropout 0.1", "causal", text=BOOK_GPT2_TEXT,
            gpt2_ids=BOOK_GPT2_IDS, d_in=768, d_out=16, pos=True, dropout=0.1, seed=7, embed_seed=123)
    yield C("gpt2 book sentence mha 4 heads", "mha", text=BOOK_GPT2_TEXT, gpt2_ids=BOOK_GPT2_IDS,
            d_in=16, d_out=8, heads=4, embed_seed=3)
    yield C("book simplified batch 2", "simplified", batch=2)
    yield C("book self-v1 seed 123 (000 3.4.2)", "self-v1")
    yield C("book self-v2 seed 789 (000 3.4.2)", "self-v2", seed=789)
    yield C("book self-v2 seed 123 (001)", "self-v2", seed=123)
    yield C("book self-v2 causal seed 789 (000 3.5.1)", "self-v2", seed=789, causal=True)
    yield C("book self-v1 causal", "self-v1", causal=True)
    yield C("book causal batch 2 (000 3.5.3)", "causal", batch=2)
    yield C("book causal dropout 0.5 continues generator", "causal", dropout=0.5)
    yield C("book causal dropout 0.5 dropout-seed 123", "causal", dropout=0.5, dropout_seed=123)
    yield C("book causal dropout 0.5 batch 2 eval", "causal", dropout=0.5, batch=2, eval_mode=True)
    yield C("book mha-wrapper 2 heads batch 2 (000 3.6.1)", "mha-wrapper", heads=2, batch=2)
    yield C("book mha 2 heads batch 2 (000 3.6.2)", "mha", heads=2, batch=2)
    yield C("book mha dropout 0.5 batch 2", "mha", heads=2, d_out=4, dropout=0.5, batch=2)
    yield C("book causal pos embed-seed 7", "causal", pos=True, embed_seed=7)
    yield C("book cross random second input (kv 8)", "cross", d_out_v=4)
    yield C("book words reordered self-v1", "self-v1", text="step one with starts journey Your Your")
    yield C("004 SelfAttention(3,3,4)", "self-v1", text=L, d_out=3, d_out_v=4)
    yield C("004 SelfAttention(3,2,1) x4 heads", "self-v1", text=L, d_out=2, d_out_v=1, heads=4)
    yield C("004 CrossAttention(3,2,4)", "cross", text=L, d_out=2, d_out_v=4)
    yield C("004 causal self-v1 (3,2,4)", "self-v1", text=L, d_out=2, d_out_v=4, causal=True)
    yield C("cross text2 heads 2 pos", "cross", text=text_of(5, 1), text2=text_of(9, 2), d_in=8,
            d_out=4, d_out_v=3, heads=2, pos=True, seed=11, embed_seed=5, vocab_size=200)
    yield C("cross text2 causal longer queries", "cross", text=text_of(10, 3), text2=text_of(6, 4), d_in=6,
            causal=True, seed=2024, vocab_size=100)
    yield C("cross kv-len 3 heads 3 batch 2", "cross", text=text_of(7, 5), d_in=16, d_out=5, heads=3,
            kv_len=3, batch=2, seed=3, vocab_size=500)
    yield C("simplified random d_in 16 T 12", "simplified", text=text_of(12, 6), d_in=16, embed_seed=99,
            vocab_size=1000)
    yield C("self-v1 d_in 32 T 20 seed 0", "self-v1", text=text_of(20, 7), d_in=32, d_out=8, seed=0,
            vocab_size=300)
    yield C("self-v1 12 heads d_out_v 3", "self-v1", text=text_of(10, 8), d_in=8, d_out=4, d_out_v=3,
            heads=12, seed=5, vocab_size=64)
    yield C("self-v2 qkv-bias d_in 64 T 16 seed 7 batch 2", "self-v2", text=text_of(16, 9), d_in=64,
            d_out=16, qkv_bias=True, seed=7, batch=2)
    yield C("self-v2 causal qkv-bias pos", "self-v2", text=text_of(9, 10), d_in=12, d_out=6, qkv_bias=True,
            causal=True, pos=True, seed=31, vocab_size=77)
    yield C("causal dropout 0.1 d_in 16 T 24 seed 42", "causal", text=text_of(24, 11), d_in=16, d_out=8,
            dropout=0.1, seed=42, vocab_size=400)
    yield C("causal dropout 1", "causal", text=text_of(8, 12), d_in=6, d_out=3, dropout=1.0, seed=8,
            vocab_size=50)
    yield C("causal dropout 1 dropout-seed 4", "causal", text=text_of(8, 12), d_in=6, d_out=3, dropout=1.0,
            seed=8, dropout_seed=4, vocab_size=50)
    yield C("causal dropout 0 qkv-bias", "causal", text=text_of(8, 13), d_in=6, d_out=3, dropout=0.0,
            qkv_bias=True, seed=9, vocab_size=50)
    yield C("causal qkv-bias pos batch 2 dropout 0.1", "causal", text=text_of(14, 14), d_in=10, d_out=5,
            dropout=0.1, qkv_bias=True, pos=True, batch=2, seed=77, embed_seed=78, vocab_size=120)
    yield C("causal pos context-length 40", "causal", text=text_of(10, 15), d_in=4, pos=True,
            context_length=40, seed=1, vocab_size=90)
    yield C("causal d_in 768 T 64 dropout 0.5", "causal", text=text_of(64, 16), d_in=768, d_out=4,
            dropout=0.5, seed=123, vocab_size=100)
    yield C("mha-wrapper 3 heads dropout 0.5 batch 2", "mha-wrapper", text=text_of(11, 17), d_in=8,
            d_out=3, heads=3, dropout=0.5, batch=2, seed=321, vocab_size=60)
    yield C("mha-wrapper 4 heads dropout 0.1 dropout-seed 5 qkv-bias", "mha-wrapper", text=text_of(9, 18),
            d_in=12, d_out=4, heads=4, dropout=0.1, dropout_seed=5, qkv_bias=True, seed=6, vocab_size=80)
    yield C("mha-wrapper 12 heads dropout 0.5 batch 2", "mha-wrapper", text=text_of(6, 19), d_in=8,
            d_out=2, heads=12, dropout=0.5, batch=2, seed=12, vocab_size=40)
    yield C("mha-wrapper 1 head dropout 0.5", "mha-wrapper", text=text_of(7, 20), d_in=5, d_out=3, heads=1,
            dropout=0.5, seed=13, vocab_size=30)
    yield C("mha 4 heads d_out 8 dropout 0.5 batch 2", "mha", text=text_of(10, 21), d_in=16, d_out=8,
            heads=4, dropout=0.5, batch=2, seed=14, vocab_size=100)
    yield C("mha 12 heads d_in 768 T 16 dropout 0.1", "mha", text=text_of(16, 22), d_in=768, d_out=24,
            heads=12, dropout=0.1, seed=15, vocab_size=50)
    yield C("mha 2 heads T 64 dropout 0.5 dropout-seed 99", "mha", text=text_of(64, 23), d_in=32, d_out=8,
            heads=2, dropout=0.5, dropout_seed=99, seed=16, vocab_size=200)
    yield C("mha 3 heads qkv-bias pos dropout 1", "mha", text=text_of(7, 24), d_in=9, d_out=9, heads=3,
            qkv_bias=True, pos=True, dropout=1.0, seed=17, vocab_size=30)
    yield C("mha 1 head d_out 6 eval dropout 0.5", "mha", text=text_of(5, 25), d_in=6, d_out=6, heads=1,
            dropout=0.5, eval_mode=True, seed=18, vocab_size=30)
    yield C("self-v1 default vocab 50000 d_in 64 embed-seed 3", "self-v1", text=text_of(8, 26), d_in=64,
            d_out=4, embed_seed=3)
    yield C("self-v1 seed 2^32+123 equals seed 123 stream", "self-v1", seed=2**32 + 123)
    yield C("self-v1 small vocab 3 d_in 5 (normal_ plain path)", "self-v1", text="a b a c", d_in=5,
            vocab_size=3, embed_seed=21)
    yield C("self-v2 vocab 20 d_in 5 (normal_ tail)", "self-v2", text="a b c d e f g h", d_in=5,
            vocab_size=20, embed_seed=22)
    yield C("self-v1 unicode and commas", "self-v1", text="Zürich, café, apple Äpfel zebra café", d_in=4,
            vocab_size=10, seed=19)
    yield C("004 sentence embedding random d_in 3", "simplified", text=L)



def main():
    write_golden(configs(), OUT)


if __name__ == "__main__":
    sys.exit(main())
