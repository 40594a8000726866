# Copyright (c) Sebastian Raschka under Apache License 2.0 (see LICENSE.txt).
# Source for "Build a Large Language Model From Scratch"
#   - https://www.manning.com/books/build-a-large-language-model-from-scratch
# Code: https://github.com/rasbt/LLMs-from-scratch
"""GroupedQueryAttention with llama3.py's RoPE: the book repository's code, copied for
make_modern_golden.py.

Copied from rasbt/LLMs-from-scratch (Sebastian Raschka, Apache License 2.0), commit
28c65cdfbc3338e2e040016eea4b7fdf556e4d57:
  GroupedQueryAttention            ch04/04_gqa/gpt_with_kv_gqa.py
  compute_rope_params, apply_rope  pkg/llms_from_scratch/llama3.py

The changes, and the only ones:
  * the forward records its stages in `self.rec` and `self.head_recs`, and its dropout goes
    through dropout_maybe_recorded, unless modern_recording.RECORD is False (see
    modern_recording.py, which also holds linear_cols and with_biases);
  * GroupedQueryAttention takes an optional `rope_base` (RoPE's theta_base).  With it,
    the forward applies apply_rope to the queries (b, num_heads, T, head_dim) and the new
    keys (b, num_kv_groups, T, head_dim) right after the head split and transpose, before
    the KV cache and repeat_interleave, as llama3.py's GroupedQueryAttention does (cos and
    sin from compute_rope_params(head_dim, rope_base, max(4096, positions needed)); with
    the KV cache, the new tokens' rows of cos/sin start at ptr_current_pos);
  * compute_rope_params takes an optional `rec` dict, which receives the angles before
    torch.cat([angles, angles]).
The constructor, and so the order in which its layers draw from the generator after
torch.manual_seed, is the book's.  Nothing here copies the C++ engine's logic.
"""
import torch
import torch.nn as nn

import modern_recording
from modern_recording import dropout_maybe_recorded, linear_cols, with_biases


# ----------------------------------------------------------------------------------
# pkg/llms_from_scratch/llama3.py: RoPE
# ----------------------------------------------------------------------------------
def compute_rope_params(head_dim, theta_base=10_000, context_length=4096, freq_config=None, dtype=torch.float32,
                        rec=None):
    assert head_dim % 2 == 0, "Embedding dimension must be even"

    # Compute the inverse frequencies
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2, dtype=dtype)[: (head_dim // 2)].float() / head_dim))

    # Frequency adjustments
    if freq_config is not None:
        low_freq_wavelen = freq_config["original_context_length"] / freq_config["low_freq_factor"]
        high_freq_wavelen = freq_config["original_context_length"] / freq_config["high_freq_factor"]

        wavelen = 2 * torch.pi / inv_freq

        inv_freq_llama = torch.where(
            wavelen > low_freq_wavelen, inv_freq / freq_config["factor"], inv_freq
        )

        smooth_factor = (freq_config["original_context_length"] / wavelen - freq_config["low_freq_factor"]) / (
            freq_config["high_freq_factor"] - freq_config["low_freq_factor"]
        )

        smoothed_inv_freq = (
            (1 - smooth_factor) * (inv_freq / freq_config["factor"]) + smooth_factor * inv_freq
        )

        is_medium_freq = (wavelen <= low_freq_wavelen) & (wavelen >= high_freq_wavelen)
        inv_freq_llama = torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)
        inv_freq = inv_freq_llama

    # Generate position indices
    positions = torch.arange(context_length, dtype=dtype)

    # Compute the angles
    angles = positions.unsqueeze(1) * inv_freq.unsqueeze(0)  # Shape: (context_length, head_dim // 2)
    if rec is not None:
        rec["angles"] = angles
        rec["inv_freq"] = inv_freq

    # Expand angles to match the head_dim
    angles = torch.cat([angles, angles], dim=1)  # Shape: (context_length, head_dim)

    # Precompute sine and cosine
    cos = torch.cos(angles)
    sin = torch.sin(angles)

    return cos, sin


def apply_rope(x, cos, sin):
    # x: (batch_size, num_heads, seq_len, head_dim)
    batch_size, num_heads, seq_len, head_dim = x.shape
    assert head_dim % 2 == 0, "Head dimension must be even"

    # Split x into first half and second half
    x1 = x[..., : head_dim // 2]  # First half
    x2 = x[..., head_dim // 2:]  # Second half

    # Adjust sin and cos shapes
    cos = cos[:seq_len, :].unsqueeze(0).unsqueeze(0)  # Shape: (1, 1, seq_len, head_dim)
    sin = sin[:seq_len, :].unsqueeze(0).unsqueeze(0)

    # Apply the rotary transformation
    rotated = torch.cat((-x2, x1), dim=-1)
    x_rotated = (x * cos) + (rotated * sin)

    # It's ok to use lower-precision after applying cos and sin rotation
    return x_rotated.to(dtype=x.dtype)


# ----------------------------------------------------------------------------------
# ch04/04_gqa/gpt_with_kv_gqa.py: GroupedQueryAttention (+ optional RoPE from llama3.py)
# ----------------------------------------------------------------------------------
class GroupedQueryAttention(nn.Module):
    def __init__(
            self, d_in, d_out, dropout, num_heads, num_kv_groups, dtype=None, qkv_bias=False, rope_base=None
    ):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        assert num_heads % num_kv_groups == 0, "num_heads must be divisible by num_kv_groups"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads

        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias, dtype=dtype)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias, dtype=dtype)
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias, dtype=dtype)
        self.out_proj = nn.Linear(d_out, d_out, bias=False, dtype=dtype)
        self.dropout = nn.Dropout(dropout)
        self.rope_base = rope_base  # recording copy: llama3.py's RoPE, when given

        self.register_buffer("cache_k", None, persistent=False)
        self.register_buffer("cache_v", None, persistent=False)
        self.ptr_current_pos = 0

    def forward(self, x, use_cache=False):
        b, num_tokens, _ = x.shape

        # Apply projections
        queries = self.W_query(x)  # (b, num_tokens, num_heads * head_dim)
        keys = self.W_key(x)       # (b, num_tokens, num_kv_groups * head_dim)
        values = self.W_value(x)   # (b, num_tokens, num_kv_groups * head_dim)

        # Reshape
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys_new = keys.view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        values_new = values.view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        queries_unrotated, keys_unrotated = queries, keys_new

        # Apply RoPE (llama3.py's GroupedQueryAttention), the new tokens at their positions
        rope_rec = {}
        if self.rope_base is not None:
            start = self.ptr_current_pos if use_cache else 0
            cos, sin = compute_rope_params(self.head_dim, self.rope_base, max(4096, start + num_tokens),
                                           rec=rope_rec)
            keys_new = apply_rope(keys_new, cos[start:], sin[start:])
            queries = apply_rope(queries, cos[start:], sin[start:])

        if use_cache:
            if self.cache_k is None:
                self.cache_k, self.cache_v = keys_new, values_new
            else:
                self.cache_k = torch.cat([self.cache_k, keys_new], dim=2)
                self.cache_v = torch.cat([self.cache_v, values_new], dim=2)
            keys_base, values_base = self.cache_k, self.cache_v
        else:
            keys_base, values_base = keys_new, values_new
            if self.cache_k is not None or self.cache_v is not None:
                self.cache_k, self.cache_v = None, None
                self.ptr_current_pos = 0

        # Expand keys and values to match the number of heads
        # Shape: (b, num_heads, num_tokens, head_dim)
        keys = keys_base.repeat_interleave(self.group_size, dim=1)  # Shape: (b, num_heads, num_tokens, head_dim)
        values = values_base.repeat_interleave(self.group_size, dim=1)  # Shape: (b, num_heads, num_tokens, head_dim)
        # For example, before repeat_interleave along dim=1 (query groups):
        #   [K1, K2]
        # After repeat_interleave (each query group is repeated group_size times):
        #   [K1, K1, K2, K2]
        # If we used regular repeat instead of repeat_interleave, we'd get:
        #   [K1, K2, K1, K2]

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        # Shape: (b, num_heads, num_tokens, num_tokens)
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head
        scores = attn_scores

        ####################################################
        # causal mask
        num_tokens_Q = queries.shape[-2]
        num_tokens_K = keys.shape[-2]
        device = queries.device
        if use_cache:
            q_positions = torch.arange(
                self.ptr_current_pos,
                self.ptr_current_pos + num_tokens_Q,
                device=device,
                dtype=torch.long,
            )
            self.ptr_current_pos += num_tokens_Q
        else:
            q_positions = torch.arange(num_tokens_Q, device=device, dtype=torch.long)
            self.ptr_current_pos = 0
        k_positions = torch.arange(num_tokens_K, device=device, dtype=torch.long)
        mask = q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)

        # Use the mask to fill attention scores
        attn_scores = attn_scores.masked_fill(mask, -torch.inf)

        softmax_input = attn_scores / keys.shape[-1]**0.5
        attn_weights = torch.softmax(softmax_input, dim=-1)
        assert keys.shape[-1] == self.head_dim
        weights = attn_weights
        attn_weights, factor = dropout_maybe_recorded(self.dropout, attn_weights)

        # Shape: (b, num_tokens, num_heads, head_dim)
        heads_context = attn_weights @ values
        context_vec = heads_context.transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        concat = context_vec
        context_vec = self.out_proj(context_vec)  # optional projection

        if not modern_recording.RECORD:
            return context_vec
        self.rec = {"W_out": self.out_proj.weight.T, "concat": concat[0]}
        if self.rope_base is not None:
            self.rec["rope_angles"] = rope_rec["angles"][:num_tokens]
        hd = self.head_dim
        self.head_recs = []
        for h in range(self.num_heads):
            g = h // self.group_size
            cols, gcols = slice(h * hd, (h + 1) * hd), slice(g * hd, (g + 1) * hd)
            W_query, b_query = linear_cols(self.W_query, cols)
            W_key, b_key = linear_cols(self.W_key, gcols)
            W_value, b_value = linear_cols(self.W_value, gcols)
            rec = with_biases(dict(
                kv_group=g, W_query=W_query, W_key=W_key, W_value=W_value, b_query=b_query, b_key=b_key,
                b_value=b_value, queries=queries_unrotated[0, h], keys=keys_unrotated[0, g],
                values=values_new[0, g]))
            if self.rope_base is not None:
                rec["queries_rotated"] = queries[0, h]
                rec["keys_rotated"] = keys_new[0, g]
            rec.update(
                scores=scores[0, h], scaled_scores=scores[0, h] / keys.shape[-1]**0.5,
                mask=mask.to(torch.float32), masked_scores=softmax_input[0, h], weights=weights[0, h],
                dropout_mask=factor[0, h], dropped_weights=attn_weights[0, h], context=heads_context[0, h],
                W_out=self.out_proj.weight.T)
            self.head_recs.append(rec)
        return context_vec

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None
        self.ptr_current_pos = 0
