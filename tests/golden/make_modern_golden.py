#!/usr/bin/python3
"""Writes tests/golden/modern_golden.json: what attnscope-cli must print for the variants
gqa, swa, mla and alibi, computed by PyTorch.

Run with Debian's torch (python3-torch 1.13):  /usr/bin/python3 tests/golden/make_modern_golden.py [--keep]
(--keep: configurations already in the file keep their data; see kept())

The modules are copies of the book repository's classes, one a file: modern_gqa.py
(GroupedQueryAttention with llama3.py's RoPE), modern_swa.py (MultiHeadAttentionWithSWA),
modern_mla.py (MultiHeadLatentAttention), and attnscope's own modern_alibi.py
(MultiHeadAttentionWithALiBi, written from the ALiBi paper), recording through modern_recording.py.  The
tokens, the embedding (book table or seeded nn.Embedding, --pos, vocabulary sizes), the
CLI flags and the JSON conventions are make_golden.py's, from cli_conventions.py
(embed_inputs, cli_args, CLI_DEFAULTS, plain, text_of, write_golden), so the rules are the
same as for "mha".  The format is golden.json's: {"torch_version", "configs": [{"name",
"args", "expected"}]}.

New flags: --variant gqa|swa|mla|alibi, --kv-groups G (gqa, default 1), --rope (gqa) and
--rope-base B (default 10000), --window W (swa, default 3), --latent-dim D (mla, default
max(16, d_out // 8), the class's own default).

"kv_cache" is measured on a deep copy of the module in evaluation mode: forward(x[0:1],
use_cache=True) over the whole text must equal the copy's forward without the cache;
then the cache tensors the class keeps (gqa: cache_k, cache_v; swa: cache_k, cache_v,
at most the window; mla: cache_c_kv; alibi: cache_k, cache_v) give bytes_per_token = 4 * numel / tokens.
"""
import copy
import json
import os
import sys

import torch

from cli_conventions import (BOOK_TEXT, BOOK_GPT2_TEXT, BOOK_GPT2_IDS, CLI_DEFAULTS, cli_args, embed_inputs,
                             plain, text_of, write_golden)
from modern_gqa import GroupedQueryAttention
from modern_swa import MultiHeadAttentionWithSWA
from modern_mla import MultiHeadLatentAttention
from modern_alibi import MultiHeadAttentionWithALiBi

torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "modern_golden.json")

# The new flags' defaults (the CLI's).
MODERN_DEFAULTS = {"kv_groups": 1, "rope_base": 10000, "window": 3, "latent_dim": None}

HEAD_KEYS = {
    "gqa": ["kv_group", "W_query", "W_key", "W_value", "b_query", "b_key", "b_value", "queries", "keys",
            "values", "queries_rotated", "keys_rotated", "scores", "scaled_scores", "mask", "masked_scores",
            "weights", "dropout_mask", "dropped_weights", "context", "W_out"],
    "swa": ["W_query", "W_key", "W_value", "b_query", "b_key", "b_value", "queries", "keys", "values",
            "scores", "scaled_scores", "mask", "masked_scores", "weights", "dropout_mask", "dropped_weights",
            "context", "W_out", "b_out"],
    "mla": ["W_query", "b_query", "W_UK", "W_UV", "b_UK", "b_UV", "queries", "keys", "values", "scores",
            "scaled_scores", "mask", "masked_scores", "weights", "dropout_mask", "dropped_weights", "context",
            "W_out", "b_out"],
    "alibi": ["W_query", "W_key", "W_value", "b_query", "b_key", "b_value", "queries", "keys", "values",
              "scores", "scaled_scores", "position_bias", "mask", "masked_scores", "weights", "dropout_mask",
              "dropped_weights", "context", "W_out", "b_out"],
}
TOP_KEYS = {  # module-level records, after "inputs"
    "gqa": ["rope_angles", "W_out", "concat"],
    "swa": ["W_out", "b_out", "concat"],
    "mla": ["W_DKV", "b_DKV", "latents", "W_out", "b_out", "concat"],
    "alibi": ["W_out", "b_out", "concat"],
}


def value(v):
    return v if isinstance(v, int) else plain(v)


def make_modern_config(name, variant, text=BOOK_TEXT, seed=None, embed_seed=None, d_in=None, d_out=None,
                       heads=None, dropout=None, qkv_bias=False, batch=None, pos=False, vocab_size=None,
                       context_length=None, dropout_seed=None, eval_mode=False, gpt2_ids=None,
                       kv_groups=None, rope=False, rope_base=None, window=None, latent_dim=None):
    assert variant in ("gqa", "swa", "mla", "alibi")
    assert kv_groups is None or variant == "gqa"
    assert not rope or variant == "gqa"
    assert rope_base is None or rope
    assert window is None or variant == "swa"
    assert latent_dim is None or variant == "mla"
    args = cli_args(variant, text, seed=seed, embed_seed=embed_seed, d_in=d_in, d_out=d_out, heads=heads,
                    dropout=dropout, qkv_bias=qkv_bias, batch=batch, pos=pos, vocab_size=vocab_size,
                    context_length=context_length, dropout_seed=dropout_seed, eval_mode=eval_mode,
                    gpt2_ids=gpt2_ids)
    if kv_groups is not None: args += ["--kv-groups", str(kv_groups)]
    if rope: args += ["--rope"]
    if rope_base is not None: args += ["--rope-base", str(rope_base)]
    if window is not None: args += ["--window", str(window)]
    if latent_dim is not None: args += ["--latent-dim", str(latent_dim)]

    D = CLI_DEFAULTS
    seed = D["seed"] if seed is None else seed
    embed_seed = D["embed_seed"] if embed_seed is None else embed_seed
    d_in = D["d_in"] if d_in is None else d_in
    d_out = D["d_out"] if d_out is None else d_out
    heads = D["heads"] if heads is None else heads
    dropout = D["dropout"] if dropout is None else dropout
    batch = D["batch"] if batch is None else batch
    M = MODERN_DEFAULTS
    kv_groups = M["kv_groups"] if kv_groups is None else kv_groups
    rope_base = (M["rope_base"] if rope_base is None else rope_base) if rope else None
    window = M["window"] if window is None else window
    latent_dim = M["latent_dim"] if latent_dim is None else latent_dim

    with torch.no_grad():
        expected = compute_modern(variant, text, seed, embed_seed, d_in, d_out, heads, dropout, qkv_bias, batch,
                                  pos, vocab_size, context_length, dropout_seed, eval_mode, gpt2_ids, kv_groups,
                                  rope_base, window, latent_dim)
    return {"name": name, "args": args, "expected": expected}


def kv_cache_of(module, variant, x0, d_out):
    """The module's own KV cache after the whole text (one sequence), on a deep copy in
    evaluation mode, with torch's generator state restored afterwards."""
    rng = torch.get_rng_state()
    m = copy.deepcopy(module)
    m.eval()
    m.reset_cache()
    plain_out = m(x0)
    cached_out = m(x0, use_cache=True)
    assert torch.allclose(cached_out, plain_out, atol=1e-6), "KV-cache forward differs from the plain one"
    if variant == "mla":
        tensors, token_dim = [m.cache_c_kv], 1          # (b, T, latent_dim)
    elif variant == "gqa":
        tensors, token_dim = [m.cache_k, m.cache_v], 2  # (b, num_kv_groups, T, head_dim)
    else:
        tensors, token_dim = [m.cache_k, m.cache_v], 1  # (b, T kept, num_heads, head_dim): swa, alibi
    tokens = tensors[0].shape[token_dim]
    assert all(t.shape[0] == 1 and t.shape[token_dim] == tokens and t.dtype == torch.float32 for t in tensors)
    numel = sum(t.numel() for t in tensors)
    assert (4 * numel) % tokens == 0
    torch.set_rng_state(rng)
    return {"bytes_per_token": 4 * numel // tokens, "tokens": tokens, "mha_bytes_per_token": 2 * d_out * 4}


def compute_modern(variant, text, seed, embed_seed, d_in, d_out, heads, dropout, qkv_bias, batch, pos,
                   vocab_size, context_length, dropout_seed, eval_mode, gpt2_ids, kv_groups, rope_base, window,
                   latent_dim):
    out, x, batch_x, _, _, _ = embed_inputs(variant, text, None, embed_seed, d_in, batch, pos, vocab_size,
                                            context_length, None, gpt2_ids)

    # --- module: as make_golden.py's "mha" ---
    torch.manual_seed(seed)
    if variant == "gqa":
        m = GroupedQueryAttention(d_in, d_out, dropout, heads, kv_groups, qkv_bias=qkv_bias, rope_base=rope_base)
    elif variant == "swa":
        m = MultiHeadAttentionWithSWA(d_in, d_out, dropout, heads, qkv_bias=qkv_bias, sliding_window_size=window)
    elif variant == "alibi":
        m = MultiHeadAttentionWithALiBi(d_in, d_out, dropout, heads, qkv_bias=qkv_bias)
    else:
        m = MultiHeadLatentAttention(d_in, d_out, dropout, heads, qkv_bias=qkv_bias, latent_dim=latent_dim)
    if eval_mode:
        m.eval()
    if dropout_seed is not None:
        torch.manual_seed(dropout_seed)
    outputs = m(batch_x)
    rng_after = torch.get_rng_state()

    for k in TOP_KEYS[variant]:
        if k in m.rec:
            out[k] = plain(m.rec[k])
    out["heads"] = [{k: value(rec[k]) for k in HEAD_KEYS[variant] if k in rec} for rec in m.head_recs]
    out["output"] = plain(outputs)
    out["kv_cache"] = kv_cache_of(m, variant, batch_x[0:1], d_out)
    assert torch.equal(torch.get_rng_state(), rng_after)
    return out


def configs():
    C = make_modern_config
    G2 = BOOK_GPT2_TEXT
    # --- gqa ---
    yield C("book gqa d_out 4 heads 2 kv-groups 1 (default)", "gqa", d_out=4, heads=2)
    yield C("book gqa d_out 4 heads 2 kv-groups 2 (= mha)", "gqa", d_out=4, heads=2, kv_groups=2)
    yield C("book gqa 4 heads 2 groups rope", "gqa", d_out=8, heads=4, kv_groups=2, rope=True)
    yield C("book gqa 2 heads 1 group rope rope-base 500000", "gqa", d_out=8, heads=2, kv_groups=1, rope=True,
            rope_base=500000)
    yield C("gqa rope pos qkv-bias 4 heads 2 groups", "gqa", text=text_of(9, 101), d_in=8, d_out=16, heads=4,
            kv_groups=2, rope=True, pos=True, qkv_bias=True, seed=41, embed_seed=42, vocab_size=60)
    yield C("book gqa dropout 0.5 batch 2", "gqa", d_out=8, heads=4, kv_groups=2, dropout=0.5, batch=2)
    yield C("book gqa dropout 0.5 batch 2 dropout-seed 123", "gqa", d_out=8, heads=4, kv_groups=2, dropout=0.5,
            batch=2, dropout_seed=123)
    yield C("gqa eval dropout 0.5 qkv-bias", "gqa", text=text_of(7, 102), d_in=6, d_out=6, heads=3, kv_groups=1,
            dropout=0.5, eval_mode=True, qkv_bias=True, seed=43, vocab_size=40)
    yield C("gqa 12 heads 4 groups d_in 768 d_out 24 T 16 dropout 0.1", "gqa", text=text_of(16, 103), d_in=768,
            d_out=24, heads=12, kv_groups=4, dropout=0.1, seed=15, vocab_size=50)
    # T 150 crosses the engine's 128-row blocks; one head keeps the file small.
    yield C("gqa rope T 150 1 head", "gqa", text=text_of(150, 104), d_in=16, d_out=8, heads=1, rope=True,
            seed=44, vocab_size=100)
    # --- swa ---
    yield C("book swa window 1", "swa", d_out=4, heads=2, window=1)
    yield C("book swa window 3 (default)", "swa", d_out=4, heads=2)
    yield C("book swa window 8 >= T", "swa", d_out=4, heads=2, window=8)
    yield C("book swa window 6 = T batch 2", "swa", d_out=4, heads=2, window=6, batch=2)
    yield C("swa window 4 dropout 0.5 batch 2", "swa", text=text_of(10, 105), d_in=8, d_out=6, heads=2, window=4,
            dropout=0.5, batch=2, seed=45, vocab_size=50)
    yield C("swa window 4 dropout 0.5 batch 2 dropout-seed 7", "swa", text=text_of(10, 105), d_in=8, d_out=6,
            heads=2, window=4, dropout=0.5, batch=2, dropout_seed=7, seed=45, vocab_size=50)
    yield C("swa qkv-bias pos 3 heads window 2", "swa", text=text_of(8, 106), d_in=9, d_out=9, heads=3, window=2,
            qkv_bias=True, pos=True, seed=46, embed_seed=47, vocab_size=30)
    yield C("swa T 150 window 40 1 head", "swa", text=text_of(150, 107), d_in=16, d_out=4, heads=1, window=40,
            seed=48, vocab_size=120)
    yield C("gpt2 book sentence swa 4 heads window 5", "swa", text=G2, gpt2_ids=BOOK_GPT2_IDS, d_in=16, d_out=8,
            heads=4, window=5, embed_seed=3)
    # --- mla ---
    yield C("book mla d_out 4 heads 2 default latent (16)", "mla", d_out=4, heads=2)
    yield C("book mla latent 2", "mla", d_out=4, heads=2, latent_dim=2)
    yield C("mla qkv-bias pos latent 3", "mla", text=text_of(8, 108), d_in=8, d_out=8, heads=2, latent_dim=3,
            qkv_bias=True, pos=True, seed=49, embed_seed=50, vocab_size=40)
    yield C("book mla dropout 0.5 batch 2 latent 4", "mla", d_out=8, heads=4, latent_dim=4, dropout=0.5, batch=2)
    yield C("mla dropout 0.5 batch 2 dropout-seed 9 eval", "mla", text=text_of(7, 109), d_in=8, d_out=6, heads=3,
            latent_dim=4, dropout=0.5, batch=2, dropout_seed=9, eval_mode=True, seed=51, vocab_size=30)
    yield C("mla T 64 d_in 32 2 heads latent 6", "mla", text=text_of(64, 110), d_in=32, d_out=8, heads=2,
            latent_dim=6, dropout=0.1, seed=52, vocab_size=200)
    # --- alibi: slopes for 1, 2, 3 (not a power of 2), 4, 6 and 12 heads ---
    yield C("book alibi d_out 4 heads 2", "alibi", d_out=4, heads=2)
    yield C("book alibi 1 head", "alibi", d_out=4, heads=1)
    yield C("alibi 3 heads qkv-bias pos", "alibi", text=text_of(8, 111), d_in=9, d_out=9, heads=3, qkv_bias=True,
            pos=True, seed=53, embed_seed=54, vocab_size=30)
    yield C("book alibi dropout 0.5 batch 2 4 heads", "alibi", d_out=8, heads=4, dropout=0.5, batch=2)
    yield C("alibi 6 heads dropout 0.5 batch 2 dropout-seed 11 eval", "alibi", text=text_of(9, 112), d_in=12,
            d_out=12, heads=6, dropout=0.5, batch=2, dropout_seed=11, eval_mode=True, seed=55, vocab_size=40)
    yield C("alibi 12 heads d_out 24", "alibi", text=text_of(5, 113), d_in=16, d_out=24, heads=12, dropout=0.1,
            seed=56, vocab_size=30)
    yield C("alibi T 150 1 head", "alibi", text=text_of(150, 114), d_in=16, d_out=4, heads=1, seed=57,
            vocab_size=120)
    yield C("gpt2 book sentence alibi 4 heads", "alibi", text=G2, gpt2_ids=BOOK_GPT2_IDS, d_in=16, d_out=8,
            heads=4, embed_seed=3)


def kept(entries, old_file):
    """`entries`, except that a configuration already in `old_file` with the same name
    and arguments keeps the data it has there: torch's products round differently from
    one machine to the next (its BLAS kernels), so rewriting the file when a variant is
    added would change the last digits of every other configuration."""
    with open(old_file, encoding="utf-8") as f:
        old = {(c["name"], tuple(c["args"])): c for c in json.load(f)["configs"]}
    for entry in entries:
        yield old.get((entry["name"], tuple(entry["args"])), entry)


def main():
    # --keep: the configurations already written stay as they are (see kept)
    entries = kept(configs(), OUT) if "--keep" in sys.argv[1:] and os.path.exists(OUT) else configs()
    write_golden(entries, OUT, lambda e: f" kv={e['kv_cache']['bytes_per_token']}B/tok x{e['kv_cache']['tokens']}")


if __name__ == "__main__":
    sys.exit(main())
