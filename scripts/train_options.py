"""scripts/train_small_model.py's options: the recipe's defaults come from its CFG and TRAIN, which the
options given update; an impossible option exits 2 with one line before any work starts."""
import argparse

import torch


def parse_options(doc, CFG, TRAIN, default_out):
    """The parsed options; CFG and TRAIN updated from them."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--out", default=default_out)
    ap.add_argument("--tokens", type=int, default=TRAIN["tokens"], help="training budget (for trials)")
    ap.add_argument("--context", type=int, default=CFG["context_length"])
    ap.add_argument("--layers", type=int, default=CFG["n_layers"])
    ap.add_argument("--heads", type=int, default=CFG["n_heads"])
    ap.add_argument("--emb", type=int, default=CFG["emb_dim"])
    ap.add_argument("--batch", type=int, default=TRAIN["batch_size"], help="windows a step")
    ap.add_argument("--positions", choices=("learned", "sinusoidal"), default=TRAIN["positions"])
    ap.add_argument("--loss-fraction", type=float, default=TRAIN["loss_fraction"],
                    help="score this fraction of each window's positions (a random set each step)")
    ap.add_argument("--peak-lr", type=float, default=TRAIN["peak_lr"])
    ap.add_argument("--restricted-softmax", type=float, default=TRAIN["restricted_softmax"],
                    help="the fraction of steps (the first) whose softmax covers only the train split's tokens")
    ap.add_argument("--batch-softmax", type=int, default=TRAIN["batch_softmax"],
                    help="in the restricted steps, the softmax covers this many of the commonest ids and the batch's"
                         " targets only (a sampled softmax; 0: every id of the train split)")
    ap.add_argument("--position-rms", type=float, default=TRAIN["position_rms"], help="the sinusoid table's scale")
    ap.add_argument("--position-base", type=float, default=TRAIN["position_base"],
                    help="the sinusoids' longest wavelength over 2 pi, in positions")
    ap.add_argument("--position-top", type=float, default=TRAIN["position_top"],
                    help="the sinusoids' highest frequency, in radians a position")
    ap.add_argument("--position-dims", type=int, default=TRAIN["position_dims"],
                    help="the sinusoids fill the last N dimensions only, which the token embeddings keep at 0"
                         " (0: all dimensions, added to the tokens')")
    ap.add_argument("--weight-decay", type=float, default=TRAIN["weight_decay"])
    ap.add_argument("--repeat-fraction", type=float, default=TRAIN["repeat_fraction"],
                    help="the fraction of training windows replaced by their first half, twice")
    ap.add_argument("--repeat-random", action=argparse.BooleanOptionalAction, default=None,
                    help="repeated windows hold random tokens (ids seen over 10 times in training), not text"
                         f" (default: {'yes' if TRAIN['repeat_random'] else 'no'}, where --repeat-fraction is above 0)")
    ap.add_argument("--repeat-kind", choices=("half", "span", "periodic"), default=TRAIN["repeat_kind"],
                    help="half: a repeated window is its first half twice; span: random tokens in which one span of"
                         " random length comes again at a random distance (only an induction head predicts it);"
                         " periodic: a run of the window's first 4 to C/2 tokens (random ones with --repeat-random) repeated to"
                         " the window's end")
    ap.add_argument("--attention-only", action="store_true", default=TRAIN["attention_only"],
                    help="blocks without an MLP (the file holds GPT-2's MLP weights as zeros, which add exactly 0)")
    ap.add_argument("--seed", type=int, default=TRAIN["seed"], help="initial weights and the order of the windows")
    ap.add_argument("--eval-every", type=int, default=TRAIN["eval_every"], help="steps between evaluations")
    ap.add_argument("--drop-rate", type=float, default=CFG["drop_rate"], help="the book's dropout (0: none)")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                    help="where to train: cuda trains with bf16 autocast (the recipe and the outputs are the same)")
    ap.add_argument("--minutes", type=float, default=0.0,
                    help="end the schedule early where the token budget would take longer than this (0: no limit)")
    ap.add_argument("--card", action="store_true",
                    help="no training: evaluate OUT/model.safetensors again and rewrite OUT/MODEL_CARD.md, the"
                         " recipe and the training figures read from OUT/train.log")
    ap.add_argument("--pilot", action="store_true", help="train and print the head scores only (no files)")
    ap.add_argument("--stop-after", type=int, default=0,
                    help="a pilot: stop after this many steps of the full schedule (compare a recipe's start)")
    args = ap.parse_args()
    if not 0.0 <= args.repeat_fraction <= 1.0:
        ap.error(f"--repeat-fraction must be between 0 and 1, got {args.repeat_fraction:g}")
    if not (args.position_dims == 0 or 2 <= args.position_dims < args.emb and args.position_dims % 2 == 0):
        ap.error(f"--position-dims must be 0 or an even number below --emb ({args.emb}), got {args.position_dims}")
    if args.position_dims and args.positions != "sinusoidal":
        ap.error("--position-dims needs --positions sinusoidal (learned positions fill every dimension)")
    if args.batch_softmax < 0 or args.batch_softmax and args.restricted_softmax == 0.0:
        ap.error(f"--batch-softmax must be 0 or a number of ids for the --restricted-softmax steps"
                 f" (above 0 of them), got {args.batch_softmax} with --restricted-softmax {args.restricted_softmax:g}")
    if not 0.0 <= args.drop_rate < 1.0:
        ap.error(f"--drop-rate must be at least 0 and below 1, got {args.drop_rate:g}")
    if not 0.0 <= args.minutes < 1e6:
        ap.error(f"--minutes must be 0 (no limit) or a number of minutes, got {args.minutes:g}")
    if args.device == "cuda" and not torch.cuda.is_available():
        ap.error(f"--device cuda: this PyTorch ({torch.__version__}) sees no CUDA device")
    if args.repeat_random and args.repeat_fraction == 0.0:
        ap.error("--repeat-random needs --repeat-fraction above 0 (which windows to repeat)")
    if args.repeat_kind == "span" and (args.repeat_fraction == 0.0 or args.repeat_random is False):
        ap.error("--repeat-kind span needs --repeat-fraction above 0 and random tokens (not --no-repeat-random)")
    if args.repeat_kind == "periodic" and args.repeat_fraction == 0.0:
        ap.error("--repeat-kind periodic needs --repeat-fraction above 0 (which windows to repeat)")
    if args.repeat_random is None:  # periodic: runs of the window's own text unless --repeat-random
        args.repeat_random = args.repeat_kind == "span" or (
            args.repeat_kind == "half" and TRAIN["repeat_random"] and args.repeat_fraction > 0.0)
    TRAIN.update(restricted_softmax=args.restricted_softmax, batch_softmax=args.batch_softmax, position_rms=args.position_rms,
                 position_base=args.position_base, position_top=args.position_top,
                 position_dims=args.position_dims, weight_decay=args.weight_decay,
                 eval_every=args.eval_every, peak_lr=args.peak_lr, tokens=args.tokens, batch_size=args.batch,
                 positions=args.positions, loss_fraction=args.loss_fraction, repeat_fraction=args.repeat_fraction,
                 repeat_random=args.repeat_random, repeat_kind=args.repeat_kind, seed=args.seed,
                 attention_only=args.attention_only)
    CFG.update(context_length=args.context, n_layers=args.layers, n_heads=args.heads, emb_dim=args.emb,
               drop_rate=args.drop_rate)
    args.default_out = ap.get_default("out")
    return args
