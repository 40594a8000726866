"""attnscope_record: what your own attention module computes, for `attnscope-cli --check`.

    import torch, attnscope_record
    torch.manual_seed(123)
    mha = MultiHeadAttention(d_in=3, d_out=4, context_length=6, dropout=0.0, num_heads=2)
    attnscope_record.record(mha, inputs.unsqueeze(0), "mine.safetensors")   # what its forward takes

then `attnscope-cli --check mine.safetensors` says whether every stage is PyTorch's
attention and, where one is not, the first such stage, its first wrong cell and which
known mistake gives your numbers (docs/check.md).

It changes nothing in your code: it reads what a module in the book's style shows from
outside. Forward hooks on its W_query, W_key and W_value (their outputs: the queries,
keys and values; MultiHeadLatentAttention's W_DKV, W_UK and W_UV give the latents, keys
and values), on its dropout (the attention weights going in and coming out), on
its out_proj (what goes in: the heads' context vectors side by side), and on the module
(its output); its parameters (state_dict), its input; and what it can read of the
settings: d_in and d_out from W_query, num_heads (1 when the module has none), the
dropout's p, whether the module is training, whether W_query has a bias, whether a
`mask` buffer is there, and which of chapter 4's classes it is (variant: gqa with
num_kv_groups and rope_base, swa with sliding_window_size, mla with latent_dim from
W_DKV, alibi with its slopes). Two of chapter 3's classes are laid out otherwise:
MultiHeadAttentionWrapper (variant mha-wrapper: a CausalAttention a head in `heads`, each
hooked as above, their stages put side by side; d_out is each head's) and SelfAttention_v1
(variant self-v1: W_query, W_key and W_value are nn.Parameter used as x @ W, seen through
torch's function mode where the torch has it). The file is safetensors (no pickle):
float32 tensors named input, param.NAME and stage.NAME, the settings as its metadata.
Plain PyTorch and NumPy; attnscope-cli --print-recorder prints this file.
"""
import contextlib
import json
import struct

import numpy as np
import torch

try:  # torch 1.13 on: sees the calls a forward makes, SelfAttention_v1's x @ W among them
    from torch.overrides import TorchFunctionMode as _FunctionMode
except ImportError:
    _FunctionMode = None


def _first_sequence(t):
    """The first batch element, as attnscope computes one sequence."""
    t = t.detach()
    return t[0] if t.dim() >= 3 else t


def _variant(module):
    """Which of the book's chapter 4 classes `module` is, by what it holds, and its settings
    ({} for chapter 3's classes, whose files have no "variant")."""
    if isinstance(getattr(module, "W_DKV", None), torch.nn.Linear):  # MultiHeadLatentAttention
        return {"variant": "mla", "latent_dim": module.W_DKV.out_features}
    if hasattr(module, "num_kv_groups"):  # GroupedQueryAttention; llama3.py's RoPE with rope_base
        rope_base = getattr(module, "rope_base", None)
        return {"variant": "gqa", "num_kv_groups": int(module.num_kv_groups),
                "rope_base": None if rope_base is None else float(rope_base)}
    if hasattr(module, "sliding_window_size"):  # MultiHeadAttentionWithSWA; None: plain causal
        window = module.sliding_window_size
        return {"variant": "swa", "sliding_window_size": None if window is None else int(window)}
    if isinstance(getattr(module, "slopes", None), torch.Tensor) or "alibi" in type(module).__name__.lower():
        return {"variant": "alibi"}
    return {}


def _wrapper_heads(module):
    """MultiHeadAttentionWrapper's (3.6.1) heads, each a module in the book's style (CausalAttention),
    or None for a module without them."""
    heads = getattr(module, "heads", None)
    if isinstance(heads, torch.nn.ModuleList) and len(heads) > 0 and \
            all(isinstance(getattr(head, "W_query", None), torch.nn.Linear) for head in heads):
        return list(heads)
    return None


def _parameter_weights(module):
    """SelfAttention_v1's (3.4.1) W_query, W_key and W_value: nn.Parameter of (d_in, d_out) used
    as x @ W; None for a module without them."""
    weights = [(stage, getattr(module, name, None)) for stage, name in
               (("queries", "W_query"), ("keys", "W_key"), ("values", "W_value"))]
    if all(isinstance(w, torch.nn.Parameter) and w.dim() == 2 for _, w in weights):
        return weights
    return None


def _products_of(weights, seen):
    """What no hook sees in SelfAttention_v1: x @ W_query (the queries, and the keys and values
    likewise) and the first softmax (the weights), watched through torch's function mode, which
    changes nothing in the module. Without that mode (torch before 1.13) only the output is seen."""
    if _FunctionMode is None or not weights:
        return contextlib.nullcontext()

    class Products(_FunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = getattr(func, "__name__", "")
            if name in ("matmul", "__matmul__", "mm") and len(args) == 2:
                for stage, w in weights:  # the parameter itself on the right: x @ self.W_query
                    if args[1] is w:
                        seen.setdefault(stage, out)
            elif name == "softmax":
                seen.setdefault("weights", out)
            return out

    return Products()


def _stacked(heads_seen, stage):
    """The wrapper's heads' `stage` as one: queries, keys, values side by side (what
    torch.cat(dim=-1) gives), weights one (tokens, tokens) a head; None unless every head has it."""
    parts = [seen.get(stage) for seen in heads_seen]
    if any(part is None for part in parts):
        return None
    try:
        return torch.cat(parts, dim=-1) if stage in ("queries", "keys", "values") else torch.stack(parts, dim=-3)
    except RuntimeError:  # heads of different shapes: no one stage (the reader would refuse it)
        return None


def record(module, inputs, path, qkv_bias=None):
    """Runs module(inputs) once with hooks and writes what they saw to `path`. `inputs` is what
    the module's forward takes: (tokens, d_in) (the book's SelfAttention_v1 and _v2), or a batch
    (b, tokens, d_in), whose first sequence is checked. `qkv_bias`, when you give it, is what
    you meant to build (the file keeps the module as it is): with qkv_bias=False, projections
    that have a bias all the same are found."""
    heads = _wrapper_heads(module)
    parameters = None if heads else _parameter_weights(module)
    seen = {}
    heads_seen = [{} for _ in heads or ()]
    hooks = []

    def output_of(into, name):
        def hook(_module, _inputs, output):
            into[name] = output
        return hook

    def input_and_output_of(into, before, after):
        # The first call's: the attention weights (a second call, e.g. on ones to see the
        # dropout's factor, is not the module's data).
        def hook(_module, inputs_, output):
            into.setdefault(before, inputs_[0])
            into.setdefault(after, output)
        return hook

    def hook_projections_and_dropout(owner, into, projections):
        for stage, attribute in projections:
            if isinstance(getattr(owner, attribute, None), torch.nn.Module):
                hooks.append(getattr(owner, attribute).register_forward_hook(output_of(into, stage)))
        if isinstance(getattr(owner, "dropout", None), torch.nn.Module):
            hooks.append(owner.dropout.register_forward_hook(input_and_output_of(into, "weights", "dropped_weights")))

    variant = _variant(module) if heads is None and parameters is None else {}
    projections = (("queries", "W_query"), ("keys", "W_key"), ("values", "W_value"))
    if variant.get("variant") == "mla":  # keys and values come up from the latents
        projections = (("queries", "W_query"), ("latents", "W_DKV"), ("keys", "W_UK"), ("values", "W_UV"))
    if heads:  # each CausalAttention's own; put together below
        for head, into in zip(heads, heads_seen):
            hook_projections_and_dropout(head, into, projections)
    else:
        hook_projections_and_dropout(module, seen, projections)

    def first_input_of(name):
        # The first call's: a forward that calls out_proj twice shows it at the output.
        def hook(_module, inputs_, _output):
            seen.setdefault(name, inputs_[0])  # returns nothing: a hook that returns replaces the output
        return hook

    if isinstance(getattr(module, "out_proj", None), torch.nn.Module):
        hooks.append(module.out_proj.register_forward_hook(first_input_of("concat")))
    hooks.append(module.register_forward_hook(output_of(seen, "output")))
    try:
        with torch.no_grad(), _products_of(parameters, seen):
            module(inputs)
    finally:
        for hook in hooks:
            hook.remove()
    for stage in ("queries", "keys", "values", "weights", "dropped_weights") if heads else ():
        whole = _stacked(heads_seen, stage)
        if whole is not None:
            seen[stage] = whole

    dropout = getattr(heads[0] if heads else module, "dropout", None)
    settings = {
        "class": type(module).__name__,
        **_shape_settings(module, heads, parameters),
        "dropout": float(dropout.p) if isinstance(dropout, torch.nn.Dropout) else 0.0,
        "training": bool(module.training),
        "out_proj": isinstance(getattr(module, "out_proj", None), torch.nn.Linear),
        **variant,
    }
    if qkv_bias is not None:
        settings["stated_qkv_bias"] = bool(qkv_bias)
    tensors = {"input": _first_sequence(inputs)}
    for name, value in module.state_dict().items():
        tensors["param." + name] = value.detach()
    if isinstance(getattr(module, "slopes", None), torch.Tensor):  # ALiBi's, often a buffer not in state_dict
        tensors["param.slopes"] = module.slopes.detach().reshape(-1)
    for name, value in seen.items():
        # The weights are (batch, heads, tokens, tokens) in the book's MultiHeadAttention,
        # (batch, tokens, tokens) in its single-head classes: the first sequence's.
        tensors["stage." + name] = value.detach()[0] if inputs.dim() == 3 else value.detach()
    write_safetensors(path, tensors, {key: json.dumps(value) for key, value in settings.items()})


def _shape_settings(module, heads, parameters):
    """d_in, d_out, num_heads, qkv_bias and mask, read from what the module holds. The wrapper's
    d_out is each head's (its constructor's d_out: the output is num_heads of them side by side);
    SelfAttention_v1's are its (d_in, d_out) parameters."""
    if parameters:
        d_in, d_out = parameters[0][1].shape
        return {"variant": "self-v1", "d_in": int(d_in), "d_out": int(d_out), "num_heads": 1, "qkv_bias": False,
                "mask": "mask" in dict(module.named_buffers())}
    first = heads[0] if heads else module
    W_query = getattr(first, "W_query", None)
    if not isinstance(W_query, torch.nn.Linear):
        raise TypeError("attnscope_record reads modules in the book's style: W_query, W_key and W_value as "
                        "nn.Linear (and out_proj, dropout, a mask buffer where the class has them), as "
                        "nn.Parameter (SelfAttention_v1), or such modules as `heads` (MultiHeadAttentionWrapper)")
    settings = {
        "d_in": W_query.in_features,
        "d_out": W_query.out_features,
        "num_heads": len(heads) if heads else int(getattr(module, "num_heads", 1)),
        "qkv_bias": W_query.bias is not None,
        # named_buffers() would find the heads' masks in the wrapper itself: each head's own.
        "mask": all("mask" in dict(owner.named_buffers()) for owner in (heads or [module])),
    }
    if heads:
        settings["variant"] = "mha-wrapper"
    return settings


def write_safetensors(path, tensors, metadata):
    """Hugging Face's safetensors: 8 bytes of header length N, N bytes of JSON, the data."""
    header, chunks, offset = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name].to(torch.float32).cpu().numpy()).tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data starts 8-aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in chunks:
            f.write(data)
