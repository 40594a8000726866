"""What scripts/train_small_model.py measures of a model: its loss over windows, its heads' types
(small_model_card.head_scores) on text and on repeated random tokens, and the exported file read back.
Each runs on the device the model is on."""
import torch

import gpt2_bpe
from book_gpt import GPTModel
from gpt2_safetensors import load_weights_into_gpt, read_safetensors
from small_model_card import best_head, head_scores, score_rows


@torch.no_grad()
def mean_loss(model, x, y, batch=16):
    """Cross entropy (nats per target) over windows x -> y, in float32 even where training
    used bf16: the losses a card reports are the model's own."""
    model.eval()
    device, total = next(model.parameters()).device, 0.0
    for i in range(0, len(x), batch):
        logits = model(x[i:i + batch].to(device))  # [batch, T, vocab]
        total += torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), y[i:i + batch].to(device).flatten(), reduction="sum").item()
    return total / y.numel()


def load_exported(path, cfg, device="cpu"):
    """A fresh GPTModel from the exported file (its sizes from __metadata__, the rest from cfg)."""
    params, meta = read_safetensors(path)
    model = GPTModel(dict(cfg, n_layers=int(meta["n_layer"]), n_heads=int(meta["n_head"]),
                          emb_dim=int(meta["n_embd"]), context_length=int(meta["n_ctx"])))
    load_weights_into_gpt(model, params)
    return model.to(device)


def type_scores(model, common, val_x, context_length, seed):
    """Head types on validation text, and (for duplicate and induction) on <|endoftext|> + 127
    random tokens + the same 127 again (fewer in a shorter context), drawn from `common`. Also the best
    previous-token and induction heads."""
    g = torch.Generator().manual_seed(seed)
    half = min(127, (context_length - 1) // 2)  # both copies and <|endoftext|> in one context
    halves = [common[torch.randint(len(common), (half,), generator=g)] for _ in range(8)]
    r = {"rep": head_scores(model, [torch.cat([torch.tensor([gpt2_bpe.END_OF_TEXT]), h, h]) for h in halves]),
         "text": head_scores(model, [val_x[i] for i in range(0, len(val_x), len(val_x) // 8)][:8])}
    r["best_prev"], r["best_ind"] = best_head(r["text"][0]), best_head(r["rep"][2])
    return r


def print_scores(r):
    print("| layer | head | previous | duplicate (text) | duplicate (rep) | induction (text) | induction (rep) | first |")
    print("\n".join(score_rows(r)))
    print("best previous-token head %d.%d: %.3f; best induction head (repeated tokens) %d.%d: %.3f"
          % (r["best_prev"] + r["best_ind"]))
