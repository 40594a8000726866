"""What make_golden.py and make_modern_golden.py share: the CLI's conventions, followed
so that PyTorch's numbers compare with attnscope-cli's output.

  * the book's inputs: BOOK_TEXT, BOOK_WORDS, BOOK_TABLE (000's `inputs`) and seed 003's
    GPT-2 sentence (BOOK_GPT2_TEXT, BOOK_GPT2_IDS);
  * the CLI's flags and defaults: cli_args, CLI_DEFAULTS;
  * its tokens and embedding stage: words, gpt2_tokens, embed_inputs, and text_of for
    longer texts;
  * its JSON: plain (full-precision floats, -inf as null) and write_golden (the file
    {"torch_version", "configs": [{"name", "args", "expected"}]}).

Nothing here copies the C++ engine's logic: the numbers come from PyTorch.
"""
import json
import os
import random
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from gpt2_bpe import bytes_to_unicode  # noqa: E402  OpenAI's table, not attnscope's C++

HERE = os.path.dirname(os.path.abspath(__file__))
ASSETS = os.path.join(HERE, "..", "..", "assets")

BOOK_TEXT = "Your journey starts with one step"
BOOK_WORDS = ["Your", "journey", "starts", "with", "one", "step"]
# 000's `inputs`
BOOK_TABLE = torch.tensor(
  [[0.43, 0.15, 0.89], # Your     (x^1)
   [0.55, 0.87, 0.66], # journey  (x^2)
   [0.57, 0.85, 0.64], # starts   (x^3)
   [0.22, 0.58, 0.33], # with     (x^4)
   [0.77, 0.25, 0.10], # one      (x^5)
   [0.05, 0.80, 0.55]] # step     (x^6)
)


def plain(t):
    """A tensor as nested lists of Python floats, -inf as None (the CLI's null)."""
    def fix(v):
        if isinstance(v, list):
            return [fix(e) for e in v]
        if v == float("-inf"):
            return None
        assert v == v and v != float("inf"), "NaN or +inf in a recorded stage"
        return v
    return fix(t.detach().tolist())


def words(text):
    # 004: sentence.replace(',', '').split()
    return text.replace(',', '').split()


def gpt2_tokens(ids):
    """Each id's text, decoded from GPT-2's own encoder.json (shipped in assets/gpt2/) with
    GPT-2's byte-to-unicode table: a reference independent of attnscope's tokenizer."""
    encoder = json.load(open(os.path.join(ASSETS, "gpt2", "encoder.json"), encoding="utf-8"))
    decoder = {i: t for t, i in encoder.items()}
    byte_of = {c: b for b, c in bytes_to_unicode().items()}
    return [decoder[i] if i == 50256 else bytes(byte_of[ch] for ch in decoder[i]).decode("utf-8") for i in ids]


# Seed 003: tiktoken's gpt2 encoding of the book's sentence, as the book prints it.
BOOK_GPT2_TEXT = "Hello, do you like tea? <|endoftext|> In the sunlit terracesof someunknownPlace."
BOOK_GPT2_IDS = [15496, 11, 466, 345, 588, 8887, 30, 220, 50256, 554, 262, 4252, 18250, 8812, 2114, 1659,
                 617, 34680, 27271, 13]


def cli_args(variant, text=BOOK_TEXT, text2=None, seed=None, embed_seed=None, d_in=None, d_out=None,
             d_out_v=None, heads=None, dropout=None, qkv_bias=False, batch=None, pos=False, vocab_size=None,
             context_length=None, dropout_seed=None, causal=False, kv_len=None, embedding=None,
             eval_mode=False, gpt2_ids=None):
    """The CLI flags for these settings; a setting left at None (or False) gives no flag."""
    args = ["--variant", variant, "--text", text]
    if gpt2_ids is not None: args += ["--tokenizer", "gpt2"]
    if text2 is not None: args += ["--text2", text2]
    if embedding is not None: args += ["--embedding", embedding]
    if seed is not None: args += ["--seed", str(seed)]
    if embed_seed is not None: args += ["--embed-seed", str(embed_seed)]
    if d_in is not None: args += ["--d-in", str(d_in)]
    if d_out is not None: args += ["--d-out", str(d_out)]
    if d_out_v is not None: args += ["--d-out-v", str(d_out_v)]
    if heads is not None: args += ["--heads", str(heads)]
    if dropout is not None: args += ["--dropout", repr(dropout)]
    if qkv_bias: args += ["--qkv-bias"]
    if batch is not None: args += ["--batch", str(batch)]
    if pos: args += ["--pos"]
    if vocab_size is not None: args += ["--vocab-size", str(vocab_size)]
    if context_length is not None: args += ["--context-length", str(context_length)]
    if dropout_seed is not None: args += ["--dropout-seed", str(dropout_seed)]
    if causal: args += ["--causal"]
    if kv_len is not None: args += ["--kv-len", str(kv_len)]
    if eval_mode: args += ["--eval"]
    return args


# The CLI's defaults (issue 2); --d-out-v defaults to --d-out.
CLI_DEFAULTS = {"seed": 123, "embed_seed": 123, "d_in": 3, "d_out": 2, "heads": 1, "dropout": 0.0,
                "batch": 1, "kv_len": 8}


def embed_inputs(variant, text, text2, embed_seed, d_in, batch, pos, vocab_size, context_length, embedding,
                 gpt2_ids=None):
    """The CLI's tokens and embedding stage, shared by every variant (make_modern_golden.py too).

    Returns (out, x, batch_x, w2, ids2, embed_text): the expected object so far ("variant",
    "embedding", "tokens", "token_ids", [tokens2, token_ids2], "token_embeddings",
    ["pos_embeddings"], "inputs"), the first text's inputs (T, d_in), their batch (B, T, d_in),
    the second text's words and ids (or None) and the function embedding a list of ids."""
    out = {"variant": variant}
    w1 = words(text) if gpt2_ids is None else gpt2_tokens(gpt2_ids)
    w2 = words(text2) if text2 is not None else None
    all_words = w1 + (w2 or [])
    longest = max(len(w1), len(w2 or []))
    ctx_len = context_length if context_length is not None else longest

    # --- embedding ---
    use_book = gpt2_ids is None and (
        embedding == "book" or (embedding in (None, "auto") and d_in == 3 and vocab_size is None
                                and all(w in BOOK_WORDS for w in all_words)))
    if use_book:
        ids1 = [BOOK_WORDS.index(w) for w in w1]
        ids2 = [BOOK_WORDS.index(w) for w in w2] if w2 is not None else None
        tok = lambda ids: BOOK_TABLE[torch.tensor(ids)]
        pos_layer = None
        if pos:
            torch.manual_seed(embed_seed)
            pos_layer = torch.nn.Embedding(ctx_len, d_in)
        out["embedding"] = "book"
    else:
        if gpt2_ids is None:
            vocab = sorted(set(all_words))  # 004: sorted(sentence.replace(',', '').split())
            dc = {s: i for i, s in enumerate(vocab)}
            ids1 = [dc[s] for s in w1]
            ids2 = [dc[s] for s in w2] if w2 is not None else None
            default_vocab = 50_000
        else:
            ids1, ids2, default_vocab = list(gpt2_ids), None, 50_257  # GPT-2's vocabulary
        torch.manual_seed(embed_seed)
        embed = torch.nn.Embedding(vocab_size if vocab_size is not None else default_vocab, d_in)
        pos_layer = torch.nn.Embedding(ctx_len, d_in) if pos else None
        tok = lambda ids: embed(torch.tensor(ids)).detach()
        out["embedding"] = "random"
    out["tokens"] = w1
    out["token_ids"] = ids1
    if w2 is not None:
        out["tokens2"] = w2
        out["token_ids2"] = ids2

    def embed_text(ids):
        t = tok(ids)
        p = pos_layer(torch.arange(len(ids))).detach() if pos_layer is not None else None
        return t, p, (t + p if p is not None else t)

    tok1, pos1, x = embed_text(ids1)
    out["token_embeddings"] = plain(tok1)
    if pos1 is not None:
        out["pos_embeddings"] = plain(pos1)
    out["inputs"] = plain(x)
    batch_x = torch.stack([x] * batch, dim=0)  # 000: torch.stack((inputs, inputs), dim=0)

    return out, x, batch_x, w2, ids2, embed_text


def text_of(n, seed, pool=None):
    """A text of n words drawn (with repeats) from a pool of ordinary words."""
    pool = pool or ("the cat sat on a warm mat while rain fell over quiet hills and old rivers ran "
                    "past stone bridges toward grey seas under heavy clouds near small towns where "
                    "children played games until late evening light faded slowly away").split()
    rng = random.Random(seed)
    return " ".join(rng.choice(pool) for _ in range(n))


def write_golden(configs_iter, out, describe=lambda e: ""):
    """Runs every configuration, prints a line for each and writes them to `out` (one
    JSON document: {"torch_version", "configs"}). make_modern_golden.py shares it."""
    entries = []
    for entry in configs_iter:
        entries.append(entry)
        e = entry["expected"]
        shape = f"T={len(e['tokens'])} d_in={len(e['inputs'][0])} heads={len(e['heads'])} B={len(e['output'])}"
        print(f"{len(entries):3d}  {entry['name']:<60s} {shape}{describe(e)}")
    names = [e["name"] for e in entries]
    assert len(set(names)) == len(names), "config names must be unique"
    text = json.dumps({"torch_version": torch.__version__, "configs": entries}, allow_nan=False,
                      ensure_ascii=False, separators=(",", ":"))
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
        f.write("\n")
    variants = sorted({e["expected"]["variant"] for e in entries})
    print(f"{len(entries)} configurations, variants {variants}, torch {torch.__version__}, "
          f"{len(text.encode()) / 1e6:.2f} MB -> {os.path.relpath(out)}")
