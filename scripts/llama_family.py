"""The Llama family in PyTorch, as Hugging Face's transformers computes it (modeling_llama,
modeling_qwen2, modeling_qwen3), in float32 and evaluation mode: the reference the C++
forward (core/model/llama_forward.cpp) is checked against. One class covers the three:

  x = embed_tokens[ids]
  per layer:  h = x + o_proj(attention(rms_norm(x, input_layernorm)))
              x = h + down_proj(silu(gate_proj(n)) * up_proj(n)),  n = rms_norm(h, post_attention_layernorm)
  logits = lm_head(rms_norm(x, norm))         (lm_head = embed_tokens when tied)

attention: q, k, v projections (bias on all three for qwen2, or attention_bias), viewed
as heads of head_dim; qwen3 applies an RMSNorm over head_dim to each head's queries and
keys (q_norm, k_norm) before RoPE; RoPE in rotate-half form (dimension i pairs with
i + head_dim/2), with Llama 3's frequency scaling when rope_scaling says "llama3"; every
key/value head serves num_attention_heads / num_key_value_heads query heads
(repeat_interleave); causal softmax(q k^T * head_dim^-0.5) v; heads concatenated.

The modules record what the C++ trace shows: every layer's and head's attention weights,
and one layer's head's every stage."""
import math

import torch
import torch.nn as nn


def rms_norm(x, weight, eps):
    variance = x.pow(2).mean(-1, keepdim=True)
    return weight * (x * torch.rsqrt(variance + eps))


def rope_inv_freq(cfg):
    """transformers' _compute_default_rope_parameters, and _compute_llama3_parameters."""
    dim = cfg["head_dim"]
    base = cfg["rope_theta"]
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    scaling = cfg.get("rope_scaling")
    if not scaling:
        return inv_freq
    assert scaling.get("rope_type", scaling.get("type")) == "llama3"
    factor = scaling["factor"]
    low_freq_factor = scaling["low_freq_factor"]
    high_freq_factor = scaling["high_freq_factor"]
    old_context_len = scaling["original_max_position_embeddings"]
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaFamily(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        d, hd = cfg["hidden_size"], cfg["head_dim"]
        H, G = cfg["num_attention_heads"], cfg["num_key_value_heads"]
        bias = cfg["model_type"] == "qwen2" or cfg.get("attention_bias", False)
        self.embed_tokens = nn.Embedding(cfg["vocab_size"], d)
        nn.init.normal_(self.embed_tokens.weight, std=0.3)  # small, as trained models' are: a tied head's logits stay moderate
        self.layers = nn.ModuleList()
        for _ in range(cfg["num_hidden_layers"]):
            layer = nn.Module()
            layer.input_layernorm = nn.Parameter(1.0 + 0.1 * torch.randn(d))
            layer.q_proj = nn.Linear(d, H * hd, bias=bias)
            layer.k_proj = nn.Linear(d, G * hd, bias=bias)
            layer.v_proj = nn.Linear(d, G * hd, bias=bias)
            layer.o_proj = nn.Linear(H * hd, d, bias=False)
            if cfg["model_type"] == "qwen3":
                layer.q_norm = nn.Parameter(1.0 + 0.1 * torch.randn(hd))
                layer.k_norm = nn.Parameter(1.0 + 0.1 * torch.randn(hd))
            layer.post_attention_layernorm = nn.Parameter(1.0 + 0.1 * torch.randn(d))
            layer.gate_proj = nn.Linear(d, cfg["intermediate_size"], bias=False)
            layer.up_proj = nn.Linear(d, cfg["intermediate_size"], bias=False)
            layer.down_proj = nn.Linear(cfg["intermediate_size"], d, bias=False)
            self.layers.append(layer)
        self.norm = nn.Parameter(1.0 + 0.1 * torch.randn(d))
        self.lm_head = None if cfg["tie_word_embeddings"] else nn.Linear(d, cfg["vocab_size"], bias=False)

    def state_dict_hf(self):
        """Hugging Face's tensor names: model.layers.N.self_attn.q_proj.weight, ..."""
        out = {"model.embed_tokens.weight": self.embed_tokens.weight}
        for i, layer in enumerate(self.layers):
            p = f"model.layers.{i}."
            out[p + "input_layernorm.weight"] = layer.input_layernorm
            for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
                lin = getattr(layer, name)
                out[p + f"self_attn.{name}.weight"] = lin.weight
                if lin.bias is not None:
                    out[p + f"self_attn.{name}.bias"] = lin.bias
            if hasattr(layer, "q_norm"):
                out[p + "self_attn.q_norm.weight"] = layer.q_norm
                out[p + "self_attn.k_norm.weight"] = layer.k_norm
            out[p + "post_attention_layernorm.weight"] = layer.post_attention_layernorm
            for name in ("gate_proj", "up_proj", "down_proj"):
                out[p + f"mlp.{name}.weight"] = getattr(layer, name).weight
        out["model.norm.weight"] = self.norm
        if self.lm_head is not None:
            out["lm_head.weight"] = self.lm_head.weight
        return out

    def load_hf(self, tensors):
        """Loads {name: float32 array} as state_dict_hf names them."""
        with torch.no_grad():
            for name, param in self.state_dict_hf().items():
                param.copy_(torch.from_numpy(tensors[name]))

    def forward(self, ids, stages_of=(0, 0)):
        cfg = self.cfg
        H, G, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
        eps = cfg["rms_norm_eps"]
        T = len(ids)
        x = self.embed_tokens(torch.tensor(ids))
        inv_freq = rope_inv_freq(cfg)
        freqs = (inv_freq[:, None].float() @ torch.arange(T)[None, :].float()).transpose(0, 1)  # T x hd/2
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        self.weights, self.stages = [], {}
        for i, layer in enumerate(self.layers):
            n = rms_norm(x, layer.input_layernorm, eps)
            q = layer.q_proj(n).view(T, H, hd).transpose(0, 1)  # H x T x hd
            k = layer.k_proj(n).view(T, G, hd).transpose(0, 1)  # G x T x hd
            v = layer.v_proj(n).view(T, G, hd).transpose(0, 1)
            if hasattr(layer, "q_norm"):
                q = rms_norm(q, layer.q_norm, eps)
                k = rms_norm(k, layer.k_norm, eps)
            q_rot = q * cos + rotate_half(q) * sin
            k_rot = k * cos + rotate_half(k) * sin
            k_all = k_rot.repeat_interleave(H // G, dim=0)  # H x T x hd
            v_all = v.repeat_interleave(H // G, dim=0)
            scores = q_rot @ k_all.transpose(1, 2) * hd ** -0.5
            scores = scores.masked_fill(mask, float("-inf"))
            weights = torch.softmax(scores, dim=-1)
            context = weights @ v_all  # H x T x hd
            self.weights.append(weights)
            if i == stages_of[0]:
                h, g = stages_of[1], stages_of[1] // (H // G)
                self.stages = {"queries": q[h], "keys": k[g], "values": v[g], "queries_rotated": q_rot[h],
                               "keys_rotated": k_rot[g], "weights": weights[h], "context": context[h]}
            x = x + layer.o_proj(context.transpose(0, 1).reshape(T, H * hd))
            n2 = rms_norm(x, layer.post_attention_layernorm, eps)
            x = x + layer.down_proj(torch.nn.functional.silu(layer.gate_proj(n2)) * layer.up_proj(n2))
        final = rms_norm(x, self.norm, eps)
        head = self.embed_tokens.weight if self.lm_head is None else self.lm_head.weight
        return final @ head.T  # T x vocab
