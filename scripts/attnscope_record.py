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
W_DKV, alibi with its slopes). The file is safetensors (no pickle): float32 tensors named
input, param.NAME and stage.NAME, the settings as its metadata.
Plain PyTorch and NumPy; attnscope-cli --print-recorder prints this file.
"""
import json
import struct

import numpy as np
import torch


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


def record(module, inputs, path, qkv_bias=None):
    """Runs module(inputs) once with hooks and writes what they saw to `path`. `inputs` is what
    the module's forward takes: (tokens, d_in) (the book's SelfAttention_v2), or a batch
    (b, tokens, d_in), whose first sequence is checked. `qkv_bias`, when you give it, is what
    you meant to build (the file keeps the module as it is): with qkv_bias=False, projections
    that have a bias all the same are found."""
    seen = {}
    hooks = []

    def output_of(name):
        def hook(_module, _inputs, output):
            seen[name] = output
        return hook

    def input_and_output_of(before, after):
        # The first call's: the attention weights (a second call, e.g. on ones to see the
        # dropout's factor, is not the module's data).
        def hook(_module, inputs_, output):
            seen.setdefault(before, inputs_[0])
            seen.setdefault(after, output)
        return hook

    variant = _variant(module)
    projections = (("queries", "W_query"), ("keys", "W_key"), ("values", "W_value"))
    if variant.get("variant") == "mla":  # keys and values come up from the latents
        projections = (("queries", "W_query"), ("latents", "W_DKV"), ("keys", "W_UK"), ("values", "W_UV"))
    for stage, attribute in projections:
        if isinstance(getattr(module, attribute, None), torch.nn.Module):
            hooks.append(getattr(module, attribute).register_forward_hook(output_of(stage)))
    if isinstance(getattr(module, "dropout", None), torch.nn.Module):
        hooks.append(module.dropout.register_forward_hook(input_and_output_of("weights", "dropped_weights")))
    def first_input_of(name):
        # The first call's: a forward that calls out_proj twice shows it at the output.
        def hook(_module, inputs_, _output):
            seen.setdefault(name, inputs_[0])  # returns nothing: a hook that returns replaces the output
        return hook

    if isinstance(getattr(module, "out_proj", None), torch.nn.Module):
        hooks.append(module.out_proj.register_forward_hook(first_input_of("concat")))
    hooks.append(module.register_forward_hook(output_of("output")))
    try:
        with torch.no_grad():
            module(inputs)
    finally:
        for hook in hooks:
            hook.remove()

    W_query = getattr(module, "W_query", None)
    if not isinstance(W_query, torch.nn.Linear):
        raise TypeError("attnscope_record reads modules in the book's style: W_query, W_key and W_value "
                        "as nn.Linear (and out_proj, dropout, a mask buffer where the class has them)")
    dropout = getattr(module, "dropout", None)
    settings = {
        "class": type(module).__name__,
        "d_in": W_query.in_features,
        "d_out": W_query.out_features,
        "num_heads": int(getattr(module, "num_heads", 1)),
        "dropout": float(dropout.p) if isinstance(dropout, torch.nn.Dropout) else 0.0,
        "training": bool(module.training),
        "qkv_bias": W_query.bias is not None,
        "mask": "mask" in dict(module.named_buffers()),
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
