"""Checks the pieces of scripts/train_small_model.py that shape what the shipped model learns
(the windows, repeated windows, the fixed sinusoid positions, the learning-rate schedule and
the card's notes on them), without the corpus or a training run: tests/train_script.test.sh."""
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import train_small_model as ts  # noqa: E402
from small_model_card import recipe_notes  # noqa: E402
from gpt2_safetensors import gpt2_tensors  # noqa: E402
from small_model_card import head_scores  # noqa: E402
from sotu_corpus import repeat_first_half, repeat_periodic, repeat_random_span, windows  # noqa: E402

failures = []


def check(name, ok, detail=""):
    print(("ok:   " if ok else "FAIL: ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


# The book's windows: targets are the inputs shifted by one token.
ids = np.arange(100, 141)
x, y = windows(ids, 8)
check("windows: 5 windows of 8", tuple(x.shape) == (5, 8), tuple(x.shape))
check("windows: targets are the next tokens", torch.equal(y[:, :-1], x[:, 1:]) and int(y[0, -1]) == 108)


def check_repeated(name, x0, y0, which, x1, y1, pool=None):
    h = x0.shape[1] // 2
    for i in range(len(which)):
        if not which[i]:
            check(f"{name}: window {i} untouched", torch.equal(x1[i], x0[i]) and torch.equal(y1[i], y0[i]))
            continue
        first = x1[i, :h]
        check(f"{name}: window {i} is one half twice", torch.equal(x1[i, h:], first))
        check(f"{name}: window {i}'s targets are its next tokens", torch.equal(y1[i, :-1], x1[i, 1:]))
        if pool is None:
            check(f"{name}: window {i} repeats its own text", torch.equal(first, x0[i, :h]) and y1[i, -1] == x0[i, h])
        else:
            check(f"{name}: window {i} holds ids of the pool only", bool(torch.isin(x1[i], pool).all()))


x0 = torch.arange(1000, 1064).reshape(4, 16)
y0 = x0 + 1
which = torch.tensor([True, False, True, False])
x1, y1 = repeat_first_half(x0, y0, which)
check("repeat: the inputs are not changed", torch.equal(x0, torch.arange(1000, 1064).reshape(4, 16)))
check_repeated("repeat (text)", x0, y0, which, x1, y1)
pool = torch.tensor([7, 11, 13, 17, 19])
x2, y2 = repeat_first_half(x0, y0, which, pool, torch.Generator().manual_seed(5))
check_repeated("repeat (random)", x0, y0, which, x2, y2, pool)


def copied_span(row, C):
    """The longest span of row (C + 1 tokens) that comes again later (a span's length, the distance)."""
    best = (0, 0)
    for a in range(C + 1):
        for b in range(a + 1, C + 1):
            n = 0
            while b + n <= C and row[a + n] == row[b + n]:
                n += 1
            best = max(best, (n, b - a))
    return best


g, ids = torch.Generator().manual_seed(7), torch.arange(5000, 6000)  # few chance repeats among 1,000 ids
distances = set()
for trial in range(20):
    x3, y3 = repeat_random_span(x0, y0, which, ids, g)
    check("span: the inputs are not changed", torch.equal(x0, torch.arange(1000, 1064).reshape(4, 16)))
    for i in range(len(which)):
        if not which[i]:
            check(f"span: window {i} untouched", torch.equal(x3[i], x0[i]) and torch.equal(y3[i], y0[i]))
            continue
        check(f"span: window {i}'s targets are its next tokens", torch.equal(y3[i, :-1], x3[i, 1:]))
        check(f"span: window {i} holds ids of the pool only", bool(torch.isin(x3[i], ids).all()))
        span, distance = copied_span(torch.cat([x3[i], y3[i, -1:]]).tolist(), 16)
        check(f"span: window {i} repeats a span of 2 to 8 tokens", 2 <= span, (span, distance))
        distances.add(distance)
check("span: the copy's distance varies", len(distances) >= 4, sorted(distances))

# Periodic repeats: a run of 4 to 8 tokens (half of 16) repeated to the window's end, the run of
# the window's own text, or of the pool's ids; its length varies from window to window.
periods = set()
for trial in range(20):
    for pool_ in (None, ids):
        x4, y4 = repeat_periodic(x0, y0, which, pool_, g)
        for i in range(len(which)):
            if not which[i]:
                check(f"periodic: window {i} untouched", torch.equal(x4[i], x0[i]) and torch.equal(y4[i], y0[i]))
                continue
            row = torch.cat([x4[i], y4[i, -1:]])
            period = next(p for p in range(1, 17) if torch.equal(row[p:], row[:-p]))
            check(f"periodic: window {i} repeats a run of 4 to 8", 4 <= period <= 8, period)
            check(f"periodic: window {i}'s targets are its next tokens", torch.equal(y4[i, :-1], x4[i, 1:]))
            if pool_ is None:
                check(f"periodic: window {i} repeats its own first tokens", torch.equal(row[:period], x0[i, :period]))
            else:
                check(f"periodic: window {i} holds ids of the pool only", bool(torch.isin(row, pool_).all()))
            periods.add(period)
check("periodic: the run's length varies", len(periods) >= 4, sorted(periods))
periodic = recipe_notes(dict(ts.TRAIN, repeat_fraction=0.5, repeat_random=False, repeat_kind="periodic"))
check("card: periodic text runs", "a run of its own first tokens of text" in periodic, periodic[-400:])

# An attention-only model: its file holds zero MLP weights of GPT-2's shapes, so a GPT-2
# loader's MLP adds exactly 0 and the model's logits are those of the blocks without one.
saved = dict(ts.CFG), dict(ts.TRAIN)
ts.CFG.update(vocab_size=50, context_length=12, emb_dim=16, n_heads=2, n_layers=2, drop_rate=0.0)
ts.TRAIN.update(attention_only=True, positions="learned", position_dims=0)
only = ts.build_model()
tensors = gpt2_tensors(only)
check("attention-only: GPT-2's MLP shapes", tuple(tensors["h.1.mlp.c_fc.weight"].shape) == (16, 64)
      and tuple(tensors["h.1.mlp.c_proj.weight"].shape) == (64, 16))
check("attention-only: MLP weights all zero", all(float(v.abs().max()) == 0.0 for k, v in tensors.items() if ".mlp." in k))
from book_gpt import GPTModel  # noqa: E402
from gpt2_safetensors import load_weights_into_gpt  # noqa: E402
full = GPTModel(dict(ts.CFG, qkv_bias=True))
load_weights_into_gpt(full, tensors)
full.out_head.weight = full.tok_emb.weight
seq = torch.tensor([[3, 9, 4, 3, 9, 4, 3, 9]])
only.eval(), full.eval()
with torch.no_grad():
    check("attention-only: a GPT-2 loader's model gives the same logits", torch.equal(only(seq), full(seq)))


# The induction stripe: a head that puts all its weight on the token after the last earlier copy
# scores 1 there, and head_detector's induction score the share of rows with a copy (5 of 8).
class PatternModel(torch.nn.Module):
    """One block, one head, whose attention is always `weights`."""
    def __init__(self, weights):
        super().__init__()
        self.weights, self.unused = weights, torch.nn.Parameter(torch.zeros(1))
        self.trf_blocks = [type("Block", (), {"att": type("Att", (), {"keep_weights": False, "last_weights": None})()})()]

    def forward(self, s):
        self.trf_blocks[0].att.last_weights = self.weights[None, None]


perfect = torch.zeros(8, 8)
for i in range(8):
    perfect[i, i - 2 if i >= 3 else 0] = 1.0  # period 3: the token after the copy one run back
scores = head_scores(PatternModel(perfect), [seq[0]])
check("head scores: five kinds a head", tuple(scores.shape) == (5, 1, 1), tuple(scores.shape))
check("head scores: a perfect induction head's stripe is 1", abs(float(scores[4, 0, 0]) - 1.0) < 1e-6, scores[:, 0, 0])
check("head scores: its head_detector score is the share of rows with a copy", abs(float(scores[2, 0, 0]) - 5 / 8) < 1e-6,
      scores[:, 0, 0])
ts.CFG.clear(), ts.CFG.update(saved[0]), ts.TRAIN.clear(), ts.TRAIN.update(saved[1])

# Fixed positions: position_top radians a position at the highest frequency, base the ratio to
# the lowest, every element's RMS position_rms (sin^2 + cos^2 = 1 for each pair).
ts.TRAIN.update(position_top=2.5, position_base=1000.0, position_rms=0.1)
table = ts.sinusoid_table(128, 192)
amp = 0.1 * math.sqrt(2.0)
check("positions: 128 x 192", tuple(table.shape) == (128, 192), tuple(table.shape))
check("positions: RMS 0.1", abs(float(table.pow(2).mean().sqrt()) - 0.1) < 1e-6, float(table.pow(2).mean().sqrt()))
check("positions: row 0 is sin 0, cos 0", torch.allclose(table[0, 0::2], torch.zeros(96))
      and torch.allclose(table[0, 1::2], torch.full((96,), amp)))
check("positions: the first pair turns 2.5 rad a position", abs(float(table[1, 0]) - amp * math.sin(2.5)) < 1e-6)
lowest = 2.5 / 1000.0 ** (190 / 192)
check("positions: the last pair turns 2.5 / 1000^(190/192)", abs(float(table[1, 190]) - amp * math.sin(lowest)) < 1e-6)

# Positions in their own dimensions: the last 32 columns hold the sinusoids (RMS 0.2 there),
# the token embeddings stay 0 in them through AdamW's steps (weight decay included).
ts.TRAIN.update(position_dims=32, position_rms=0.2)
table = ts.sinusoid_table(128, 192)
check("separate positions: the first 160 columns are 0", float(table[:, :160].abs().max()) == 0.0)
check("separate positions: RMS 0.2 in the last 32", abs(float(table[:, 160:].pow(2).mean().sqrt()) - 0.2) < 1e-6)
check("separate positions: the first pair turns 2.5 rad a position",
      abs(float(table[1, 160]) - 0.2 * math.sqrt(2.0) * math.sin(2.5)) < 1e-6)
saved_cfg = dict(ts.CFG)
ts.CFG.update(context_length=16, n_layers=1)
model = ts.build_model()
before = model.tok_emb.weight.detach().clone()
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3, weight_decay=0.1)
g = torch.Generator().manual_seed(1)
for _ in range(3):
    xb = torch.randint(0, 50257, (2, 16), generator=g)
    opt.zero_grad()
    ts.batch_loss(model, xb, xb.roll(-1, 1), None, None).backward()
    opt.step()
emb = model.tok_emb.weight.detach()
check("separate positions: token embeddings stay 0 in the position columns", float(emb[:, 160:].abs().max()) == 0.0)
# Adam moves a trained weight by about lr (3e-3) a step; weight decay alone, by 3e-4 of its value.
moved = float((emb[:, :160] - before[:, :160]).abs().max())
check("separate positions: token embeddings train in the others", moved > 1e-3, moved)
check("separate positions: the card says so", "last 32 of the embedding" in recipe_notes(ts.TRAIN))
ts.CFG.clear()
ts.CFG.update(saved_cfg)
ts.TRAIN.update(position_dims=0, position_rms=0.1)
check("card: no separate-position note without them", "separate coordinates" not in recipe_notes(ts.TRAIN))

# Appendix D's schedule: warmup from initial_lr to peak_lr, cosine down to min_lr.
t = ts.TRAIN
check("lr: starts at initial_lr", ts.lr_at(0, 1000, 50) == t["initial_lr"])
check("lr: peak after the warmup", abs(ts.lr_at(50, 1000, 50) - t["peak_lr"]) < 1e-12)
check("lr: ends at min_lr", abs(ts.lr_at(1000, 1000, 50) - t["min_lr"]) < 1e-12)
check("lr: decreasing after the warmup", ts.lr_at(300, 1000, 50) > ts.lr_at(600, 1000, 50))

# A sampled softmax's vocabulary: the frequent ids and the batch's targets, each once, in order,
# and an index that maps every one of them back to its place.
frequent = torch.tensor([5, 9, 2])
targets = torch.tensor([[9, 40], [7, 40]])
ts.CFG["vocab_size"] = 50
ids, index_of = ts.batch_vocab(frequent, targets)
ts.CFG["vocab_size"] = saved_cfg["vocab_size"]
check("batch softmax: the frequent ids and the targets, once each", ids.tolist() == [2, 5, 7, 9, 40], ids.tolist())
check("batch softmax: each id's index", torch.equal(ids[index_of[ids]], ids) and len(index_of) == 50)

# The card describes the options a run used, and nothing it did not use.
plain = recipe_notes(dict(t, repeat_fraction=0.0))
check("card: no repeat note without repeats", "twice" not in plain and "then the same tokens" not in plain)
text = recipe_notes(dict(t, repeat_fraction=0.25, repeat_random=False))
check("card: repeated text", "probability 0.25" in text and "its first half of text" in text, text[-300:])
check("card: no sampled-softmax note without it", "sampled softmax" not in plain)
sampled = recipe_notes(dict(t, batch_softmax=2000, restricted_softmax=0.85))
check("card: sampled softmax", "the 2,000 commonest" in sampled, sampled[-400:])
rand = recipe_notes(dict(t, repeat_fraction=0.5, repeat_random=True))
check("card: repeated random tokens", "probability 0.5" in rand and "random tokens" in rand, rand[-300:])
span = recipe_notes(dict(t, repeat_fraction=0.4, repeat_random=True, repeat_kind="span"))
check("card: repeated spans", "probability 0.4" in span and "comes again at a random distance" in span, span[-300:])

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
