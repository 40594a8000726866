#!/usr/bin/python3
"""What PyTorch computes for attnscope's interventions, with forward hooks on the modules
themselves: tests/golden/intervention_golden.json.

Run with Debian's torch (python3-torch 1.13):  /usr/bin/python3 tests/golden/make_intervention_golden.py

The models are the ones other golden data already covers, read from their files as the
C++ reads them: GPT-2-shaped checkpoints in F32 and BF16 and the shipped model on the
book's GPTModel (scripts/book_gpt.py), and Llama-family ones (grouped-query Qwen2.5 in
F16, Llama 3 in BF16 with a tied head, Qwen3 with q/k norms and one key/value head) on
scripts/llama_family.py. Nothing here re-implements a forward: each model runs its own.

A head's output z is what its output projection (out_proj, o_proj) reads: a forward
pre-hook on that nn.Linear changes z's slice of the head (switched off: zeros, or its
mean over the positions as the hook sees them; patched: the other text's z at those
positions). Forward hooks record z, the projection's output and the MLP's output; the
residual stream after each block is the one before plus those two, added in the
forward's order. From them:
  logit lens   the final norm and the output head on each residual stream, top 5 a position
  attribution  each part of the final residual stream through the final norm with the
               whole stream's scale held fixed, dotted with the token's head row
  head effects one full hooked forward per head (as TransformerLens's loop does)
Each case is the CLI's flags and the subset of its JSON that torch gives.
"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, HERE)
import book_gpt  # noqa: E402
import gpt2_bpe  # noqa: E402
from gpt2_safetensors import load_weights_into_gpt, read_safetensors  # noqa: E402
from llama_family import LlamaFamily, rms_norm  # noqa: E402
from make_checkpoint_golden import CHECKPOINTS, SHIPPED, SHIPPED_TEXT, book_config  # noqa: E402

torch.set_num_threads(1)
OUT = os.path.join(HERE, "intervention_golden.json")


class Gpt:
    """The book's GPTModel with a checkpoint's weights."""

    def __init__(self, cfg, params, prefix=""):
        self.model = book_gpt.GPTModel(cfg)
        load_weights_into_gpt(self.model, params, prefix)
        self.model.eval()
        self.H = cfg["n_heads"]
        self.hd = cfg["emb_dim"] // cfg["n_heads"]
        self.layers = cfg["n_layers"]
        for block in self.model.trf_blocks:
            block.att.keep_weights = True
        self.o_proj = [b.att.out_proj for b in self.model.trf_blocks]
        self.mlp = [b.ff for b in self.model.trf_blocks]
        self.head = self.model.out_head.weight  # V x d

    def embedding_parts(self, ids):
        t = torch.tensor(ids)
        return [("embed", self.model.tok_emb(t)), ("pos_embed", self.model.pos_emb(torch.arange(len(ids))))]

    def forward(self, ids):
        return self.model(torch.tensor([ids]))[0]  # T x V

    def weights(self):
        return [b.att.last_weights[0] for b in self.model.trf_blocks]  # [H, T, T] a layer

    def final_norm(self, x):
        return self.model.final_norm(x)

    def norm_linear(self, part, whole):
        n = self.model.final_norm
        scale = torch.sqrt(whole.var(dim=-1, unbiased=False) + n.eps)
        return n.scale * (part - part.mean()) / scale

    def norm_bias(self):
        return self.model.final_norm.shift


class Llama:
    """scripts/llama_family.py's model with a folder's weights."""

    def __init__(self, folder):
        with open(os.path.join(folder, "config.json")) as f:
            self.cfg = json.load(f)
        self.model = LlamaFamily(self.cfg).eval()
        read = {}
        for file in sorted(os.listdir(folder)):
            if file.endswith(".safetensors"):
                read.update(read_safetensors(os.path.join(folder, file))[0])
        self.model.load_hf(read)
        self.H, self.hd = self.cfg["num_attention_heads"], self.cfg["head_dim"]
        self.layers = self.cfg["num_hidden_layers"]
        self.o_proj = [layer.o_proj for layer in self.model.layers]
        self.mlp = [layer.down_proj for layer in self.model.layers]
        m = self.model
        self.head = m.embed_tokens.weight if m.lm_head is None else m.lm_head.weight

    def embedding_parts(self, ids):
        return [("embed", self.model.embed_tokens(torch.tensor(ids)))]

    def forward(self, ids):
        return self.model(ids)

    def weights(self):
        return self.model.weights

    def final_norm(self, x):
        return rms_norm(x, self.model.norm, self.cfg["rms_norm_eps"])

    def norm_linear(self, part, whole):
        inv = torch.rsqrt(whole.pow(2).mean(-1) + self.cfg["rms_norm_eps"])
        return self.model.norm * (part * inv)

    def norm_bias(self):
        return None


def hooked_run(fam, ids, change=None):
    """fam's forward over ids with change(layer, z) (z: T x H x hd, changed in place) in a
    pre-hook of each output projection; records every block's z, attn_out, mlp_out."""
    T, H, hd = len(ids), fam.H, fam.hd
    rec = {"z": {}, "attn_out": {}, "mlp_out": {}}
    handles = []
    for layer in range(fam.layers):
        def pre(module, inputs, layer=layer):
            z = inputs[0].reshape(T, H, hd).clone()
            if change:
                change(layer, z)
            rec["z"][layer] = z
            return (z.reshape(inputs[0].shape),)

        def attn_out(module, inputs, output, layer=layer):
            rec["attn_out"][layer] = output.reshape(T, -1)

        def mlp_out(module, inputs, output, layer=layer):
            rec["mlp_out"][layer] = output.reshape(T, -1)
        handles += [fam.o_proj[layer].register_forward_pre_hook(pre),
                    fam.o_proj[layer].register_forward_hook(attn_out),
                    fam.mlp[layer].register_forward_hook(mlp_out)]
    try:
        with torch.no_grad():
            rec["logits"] = fam.forward(ids)
            rec["weights"] = [w.clone() for w in fam.weights()]
            parts = fam.embedding_parts(ids)
    finally:
        for h in handles:
            h.remove()
    rec["parts"] = parts
    x = parts[0][1]
    for _, p in parts[1:]:
        x = x + p
    rec["residuals"] = [x]  # the residual stream before block 0, then after each block
    for layer in range(fam.layers):
        x = x + rec["attn_out"][layer]
        x = x + rec["mlp_out"][layer]
        rec["residuals"].append(x)
    return rec


def ablation(heads, mode, positions):
    def change(layer, z):
        for (l, h) in heads:
            if l != layer:
                continue
            mean = z[:, h].mean(0)
            for t in positions if positions else range(z.shape[0]):
                z[t, h] = 0.0 if mode == "zero" else mean
    return change


def patching(heads, source, positions):
    def change(layer, z):
        for (l, h) in heads:
            if l == layer:
                for t in positions if positions else range(z.shape[0]):
                    z[t, h] = source["z"][layer][t, h]
    return change


def top(logits_row, k):
    probs = torch.softmax(logits_row, dim=-1)
    t = torch.topk(probs, k)
    return [{"id": i, "prob": p} for i, p in zip(t.indices.tolist(), t.values.tolist())]


def logit_lens(fam, rec):
    with torch.no_grad():
        return [[top(row, 5) for row in fam.final_norm(x) @ fam.head.T] for x in rec["residuals"]]


def attribution(fam, rec, position, ids):
    with torch.no_grad():
        direction = fam.head[ids[0]] - (fam.head[ids[1]] if len(ids) > 1 else 0)
        whole = rec["residuals"][-1][position]
        share = lambda part: float(fam.norm_linear(part, whole) @ direction)  # noqa: E731
        comps = [{"name": name, "value": share(p[position])} for name, p in rec["parts"]]
        for layer in range(fam.layers):
            W = fam.o_proj[layer].weight  # d x H*hd (nn.Linear's [out, in])
            for h in range(fam.H):
                z = rec["z"][layer][position, h]
                comps.append({"name": f"{layer}.{h}", "value": share(z @ W[:, h * fam.hd:(h + 1) * fam.hd].T)})
            if fam.o_proj[layer].bias is not None:
                comps.append({"name": f"attn_bias {layer}", "value": share(fam.o_proj[layer].bias)})
            comps.append({"name": f"mlp {layer}", "value": share(rec["mlp_out"][layer][position])})
        if fam.norm_bias() is not None:
            comps.append({"name": "norm_bias", "value": float(fam.norm_bias() @ direction)})
        logits = rec["logits"][position]
        logit = float(logits[ids[0]] - (logits[ids[1]] if len(ids) > 1 else 0))
    return {"position": position, "id": ids[0], "minus_id": ids[1] if len(ids) > 1 else None, "logit": logit,
            "components": comps}


def metric(kind, ids, logits_row):
    if kind == "prob":
        return float(torch.softmax(logits_row, dim=-1)[ids[0]])
    return float(logits_row[ids[0]] - logits_row[ids[1]])


def head_effects(fam, ids, position, kind, metric_ids, change_of):
    """One full hooked forward per head."""
    base = metric(kind, metric_ids, hooked_run(fam, ids)["logits"][position])
    effects = [[metric(kind, metric_ids, hooked_run(fam, ids, change_of(layer, h))["logits"][position]) - base
                for h in range(fam.H)] for layer in range(fam.layers)]
    return effects, base


def plain(t):
    return t.detach().tolist()


def case(fam, ids, flags, position=None):
    """The subset of the CLI's JSON for `flags` (the CLI's names, without dashes) that torch gives."""
    T = len(ids)
    position = T - 1 if position is None else position
    positions = [int(p) for p in flags["ablate_at"].split(",")] if "ablate_at" in flags else \
        [int(p) for p in flags["patch_at"].split(",")] if "patch_at" in flags else []
    heads_of = lambda text: [tuple(int(v) for v in s.split(".")) for s in text.split(",")]  # noqa: E731
    source = hooked_run(fam, [int(i) for i in flags["patch_from_ids"].split(",")]) if "patch_from_ids" in flags else None
    base = hooked_run(fam, ids)
    out = {"next_token_position": position}
    run = base
    if "ablate" in flags:
        run = hooked_run(fam, ids, ablation(heads_of(flags["ablate"]), flags.get("ablate_mode", "zero"), positions))
    if "patch" in flags:
        run = hooked_run(fam, ids, patching(heads_of(flags["patch"]), source, positions))
    out["next_token"] = top(run["logits"][position], 10)
    if run is not base:
        out["baseline_next_token"] = top(base["logits"][position], 10)
    out["layers"] = [{"heads": [{"weights": plain(w[h])} for h in range(fam.H)]} for w in run["weights"]]
    if flags.get("logit_lens"):
        out["logit_lens"] = logit_lens(fam, run)
    if "attribute" in flags:
        out["attribution"] = attribution(fam, run, position, [int(i) for i in flags["attribute"].split(",")])
    if "head_effects" in flags:
        kind, _, text = flags["head_effects"].partition(":")
        metric_ids = [int(i) for i in text.split(",")]
        if source:
            change_of = lambda layer, h: patching([(layer, h)], source, positions)  # noqa: E731
        else:
            mode = flags.get("ablate_mode", "zero")
            change_of = lambda layer, h: ablation([(layer, h)], mode, positions)  # noqa: E731
        effects, baseline = head_effects(fam, ids, position, kind, metric_ids, change_of)
        out["head_effects"] = effects
        out["head_effects_metric"] = {"baseline": baseline}
    return {"flags": flags, "next_at": position if position != T - 1 else None, "expected": out}


def cases_for(fam, ids, source_ids):
    """Every operation on one model: both ablations, both patches, the lens, attribution, effects."""
    T, L, H = len(ids), fam.layers, fam.H
    with torch.no_grad():
        last = torch.topk(hooked_run(fam, ids)["logits"][T - 1], 2).indices.tolist()
    src = ",".join(str(i) for i in source_ids)
    return [
        case(fam, ids, {"ablate": f"0.1,{L - 1}.0", "logit_lens": True, "attribute": f"{last[0]},{last[1]}"}),
        case(fam, ids, {"ablate": f"{L - 1}.{H - 1}", "ablate_mode": "mean", "ablate_at": f"1,{T - 2}",
                        "attribute": str(last[1]), "head_effects": f"prob:{last[0]}"}, position=T - 2),
        case(fam, ids, {"patch": f"0.0,{L - 1}.{H - 1}", "patch_from_ids": src,
                        "head_effects": f"logit-diff:{last[0]},{last[1]}"}),
        case(fam, ids, {"patch": f"{L - 1}.1", "patch_from_ids": src, "patch_at": str(T - 1), "logit_lens": True}),
    ]


def main():
    models = []
    for c in CHECKPOINTS:
        if c["name"] not in ("f32-config", "bf16-64wide"):
            continue
        path = os.path.join(HERE, "checkpoints", c["name"], "model.safetensors")
        fam = Gpt(book_config(c), read_safetensors(path)[0], c.get("prefix", ""))
        g = torch.Generator().manual_seed(c["seed"] + 40)
        ids = torch.randint(0, c["vocab"], (c["tokens"],), generator=g).tolist()
        source = list(ids)
        source[1], source[-2] = (ids[1] + 1) % c["vocab"], (ids[-2] + 7) % c["vocab"]
        models.append({"model": os.path.relpath(path, os.path.join(HERE, "..")), "dtype": c["dtype"],
                       "token_ids": ids, "cases": cases_for(fam, ids, source)})
    with open(os.path.join(SHIPPED, "config.json")) as f:
        config = json.load(f)
    cfg = {"vocab_size": config["vocab_size"], "context_length": config["n_positions"], "emb_dim": config["n_embd"],
           "n_heads": config["n_head"], "n_layers": config["n_layer"], "drop_rate": 0.0, "qkv_bias": True}
    fam = Gpt(cfg, read_safetensors(os.path.join(SHIPPED, "model.safetensors"))[0])
    encoder = gpt2_bpe.Encoder()
    ids = encoder.encode(SHIPPED_TEXT)
    source = encoder.encode(SHIPPED_TEXT.replace("strong", "weak"))
    assert len(source) == len(ids)
    models.append({"model": "sotu-small", "dtype": "F32", "token_ids": ids, "cases": cases_for(fam, ids, source)})
    for name in ("qwen2-bias-f16-shards", "llama3-scaled-tied-bf16", "qwen3-qknorm-mqa-f32"):
        folder = os.path.join(HERE, "llama", name)
        fam = Llama(folder)
        V = fam.cfg["vocab_size"]
        ids = torch.randint(0, V, (10,), generator=torch.Generator().manual_seed(len(name))).tolist()
        source = list(ids)
        source[2], source[-2] = (ids[2] + 3) % V, (ids[-2] + 5) % V
        models.append({"model": os.path.relpath(folder, os.path.join(HERE, "..")), "dtype": fam.cfg["torch_dtype"],
                       "token_ids": ids, "cases": cases_for(fam, ids, source)})
    with open(OUT, "w") as f:
        json.dump({"generator": "tests/golden/make_intervention_golden.py", "torch": torch.__version__,
                   "models": models}, f)
        f.write("\n")
    print("wrote", OUT, "with", sum(len(m["cases"]) for m in models), "cases on", len(models), "models")


if __name__ == "__main__":
    main()
