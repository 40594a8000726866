"""GPT-2 checkpoints in Hugging Face's safetensors layout, for Debian's python3-torch
(which has no safetensors package): the one writer and reader of the project's Python
scripts (the shipped model's training, the golden data), and chapter 5's
load_weights_into_gpt for the book's GPTModel.

The format: 8 bytes little-endian header length N, N bytes of JSON
{name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}},
padded with spaces to a multiple of 8, then the tensors' bytes in C order.
"""
import json
import struct

import numpy as np
import torch

DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": "bf16"}


def _to_bytes(array, dtype):
    """float32 array -> the bytes of `dtype` (BF16 rounded to nearest even, as torch)."""
    if dtype == "BF16":
        return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32)).to(torch.bfloat16).view(
            torch.int16).numpy().tobytes()
    return np.ascontiguousarray(array, dtype=DTYPES[dtype]).tobytes()


def write_safetensors(path, tensors, dtype="F32", metadata=None, dtypes=None):
    """tensors: {name: float32 numpy array or torch tensor}, written in this order.
    dtypes: {name: dtype} for tensors stored otherwise than `dtype`."""
    header, blobs, offset = {}, [], 0
    for name, value in tensors.items():
        array = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)
        kind = (dtypes or {}).get(name, dtype)
        blob = _to_bytes(array, kind)
        header[name] = {"dtype": kind, "shape": list(array.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def read_safetensors(path):
    """-> ({name: float32 numpy array}, metadata); F32, F16 and BF16 only."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        raw = data[8 + n + begin:8 + n + end]
        if entry["dtype"] == "BF16":
            array = (np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            array = np.frombuffer(raw, dtype=DTYPES[entry["dtype"]]).astype(np.float32)
        tensors[name] = array.reshape(entry["shape"])
    return tensors, metadata


def gpt2_tensors(model):
    """The book's GPTModel -> GPT-2's names and [in, out] Conv1D orientation (no lm_head:
    GPT-2 ties it to wte)."""
    out = {"wte.weight": model.tok_emb.weight, "wpe.weight": model.pos_emb.weight}
    for i, b in enumerate(model.trf_blocks):
        att, ff = b.att, getattr(b.ff, "layers", None)
        h = f"h.{i}."
        out[h + "ln_1.weight"], out[h + "ln_1.bias"] = b.norm1.scale, b.norm1.shift
        out[h + "attn.c_attn.weight"] = torch.cat([att.W_query.weight.T, att.W_key.weight.T, att.W_value.weight.T], 1)
        out[h + "attn.c_attn.bias"] = torch.cat([att.W_query.bias, att.W_key.bias, att.W_value.bias])
        out[h + "attn.c_proj.weight"], out[h + "attn.c_proj.bias"] = att.out_proj.weight.T, att.out_proj.bias
        out[h + "ln_2.weight"], out[h + "ln_2.bias"] = b.norm2.scale, b.norm2.shift
        if ff is None:  # an attention-only block: zeros, whose MLP adds exactly 0 (GELU(0) = 0)
            d = att.out_proj.weight.shape[0]
            ff = [torch.nn.Linear(d, 4 * d), None, torch.nn.Linear(4 * d, d)]
            for layer in ff[0], ff[2]:
                torch.nn.init.zeros_(layer.weight), torch.nn.init.zeros_(layer.bias)
        out[h + "mlp.c_fc.weight"], out[h + "mlp.c_fc.bias"] = ff[0].weight.T, ff[0].bias
        out[h + "mlp.c_proj.weight"], out[h + "mlp.c_proj.bias"] = ff[2].weight.T, ff[2].bias
    out["ln_f.weight"], out["ln_f.bias"] = model.final_norm.scale, model.final_norm.shift
    return {k: v.detach().contiguous() for k, v in out.items()}


def load_weights_into_gpt(model, params, prefix=""):
    """Chapter 5's load_weights_into_gpt, from safetensors names: c_attn split in three
    along its last axis, every Conv1D weight transposed into nn.Linear's [out, in]."""
    def assign(param, array):
        array = torch.tensor(np.ascontiguousarray(array))
        assert param.shape == array.shape, f"shape mismatch: {tuple(param.shape)} vs {tuple(array.shape)}"
        return torch.nn.Parameter(array)

    p = {k[len(prefix):] if k.startswith(prefix) else k: v for k, v in params.items()}
    model.tok_emb.weight = assign(model.tok_emb.weight, p["wte.weight"])
    model.pos_emb.weight = assign(model.pos_emb.weight, p["wpe.weight"])
    for i, b in enumerate(model.trf_blocks):
        h = f"h.{i}."
        q_w, k_w, v_w = np.split(p[h + "attn.c_attn.weight"], 3, axis=-1)
        q_b, k_b, v_b = np.split(p[h + "attn.c_attn.bias"], 3, axis=-1)
        b.att.W_query.weight, b.att.W_query.bias = assign(b.att.W_query.weight, q_w.T), assign(b.att.W_query.bias, q_b)
        b.att.W_key.weight, b.att.W_key.bias = assign(b.att.W_key.weight, k_w.T), assign(b.att.W_key.bias, k_b)
        b.att.W_value.weight, b.att.W_value.bias = assign(b.att.W_value.weight, v_w.T), assign(b.att.W_value.bias, v_b)
        b.att.out_proj.weight = assign(b.att.out_proj.weight, p[h + "attn.c_proj.weight"].T)
        b.att.out_proj.bias = assign(b.att.out_proj.bias, p[h + "attn.c_proj.bias"])
        b.ff.layers[0].weight = assign(b.ff.layers[0].weight, p[h + "mlp.c_fc.weight"].T)
        b.ff.layers[0].bias = assign(b.ff.layers[0].bias, p[h + "mlp.c_fc.bias"])
        b.ff.layers[2].weight = assign(b.ff.layers[2].weight, p[h + "mlp.c_proj.weight"].T)
        b.ff.layers[2].bias = assign(b.ff.layers[2].bias, p[h + "mlp.c_proj.bias"])
        b.norm1.scale, b.norm1.shift = assign(b.norm1.scale, p[h + "ln_1.weight"]), assign(b.norm1.shift, p[h + "ln_1.bias"])
        b.norm2.scale, b.norm2.shift = assign(b.norm2.scale, p[h + "ln_2.weight"]), assign(b.norm2.shift, p[h + "ln_2.bias"])
    model.final_norm.scale = assign(model.final_norm.scale, p["ln_f.weight"])
    model.final_norm.shift = assign(model.final_norm.shift, p["ln_f.bias"])
    model.out_head.weight = assign(model.out_head.weight, params.get("lm_head.weight", p["wte.weight"]))
