"""What scripts/train_small_model.py measures of a model: its loss over windows, its heads' types
(small_model_card.head_scores) on text and on repeated random tokens, and the exported file read back.
Each runs on the device the model is on."""
import torch

import gpt2_bpe
from book_gpt import GPTModel
from gpt2_safetensors import load_weights_into_gpt, read_safetensors
from small_model_card import SCORE_HEADER, best_head, head_scores, score_rows


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
    """Head types on validation text; on <|endoftext|> + 127 random tokens + the same 127 again (fewer
    in a shorter context), drawn from `common` ("rep"); and on <|endoftext|> + a validation passage of
    as many tokens + the same passage again ("reptext": held-out text, repeated). Also the best
    previous-token head on text and on each repeat, and the best induction head by its stripe."""
    g = torch.Generator().manual_seed(seed)
    half = min(127, (context_length - 1) // 2)  # both copies and <|endoftext|> in one context
    halves = [common[torch.randint(len(common), (half,), generator=g)] for _ in range(8)]
    end = torch.tensor([gpt2_bpe.END_OF_TEXT])
    passages = [val_x[i][:half] for i in range(0, len(val_x), len(val_x) // 8)][:8]
    r = {"rep": head_scores(model, [torch.cat([end, h, h]) for h in halves]),
         "reptext": head_scores(model, [torch.cat([end, p, p]) for p in passages]),
         "text": head_scores(model, [val_x[i] for i in range(0, len(val_x), len(val_x) // 8)][:8])}
    r["best_prev"], r["best_ind"] = best_head(r["text"][0]), best_head(r["rep"][2])
    r["best_prev_rep"], r["best_prev_reptext"] = best_head(r["rep"][0]), best_head(r["reptext"][0])
    r["best_stripe"], r["best_stripe_reptext"] = best_head(r["rep"][4]), best_head(r["reptext"][4])
    return r


def print_scores(r):
    print(SCORE_HEADER)
    print("\n".join(score_rows(r)))
    print("best previous-token head %d.%d: %.3f; best induction head (repeated tokens) %d.%d: %.3f"
          % (r["best_prev"] + r["best_ind"]))
    print("on repeated tokens and on repeated held-out text: best previous-token head %d.%d %.3f and %d.%d %.3f;"
          " best induction stripe %d.%d %.3f and %d.%d %.3f"
          % (r["best_prev_rep"] + r["best_prev_reptext"] + r["best_stripe"] + r["best_stripe_reptext"]))
