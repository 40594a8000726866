# Copyright (c) Sebastian Raschka under Apache License 2.0 (see LICENSE.txt).
# Source for "Build a Large Language Model From Scratch"
#   - https://www.manning.com/books/build-a-large-language-model-from-scratch
# Code: https://github.com/rasbt/LLMs-from-scratch
"""MultiHeadLatentAttention: the book repository's class, copied for make_modern_golden.py.

Copied from rasbt/LLMs-from-scratch (Sebastian Raschka, Apache License 2.0), commit
28c65cdfbc3338e2e040016eea4b7fdf556e4d57:
  MultiHeadLatentAttention  ch04/05_mla/gpt_with_kv_mla.py   (inspired by
                            https://huggingface.co/bird-of-paradise/deepseek-mla)

The change, and the only one:
  * the forward records its stages in `self.rec` and `self.head_recs`, and its dropout goes
    through dropout_maybe_recorded, unless modern_recording.RECORD is False (see
    modern_recording.py, which also holds linear_cols and with_biases).
The constructor, and so the order in which its layers draw from the generator after
torch.manual_seed, is the book's.  Nothing here copies the C++ engine's logic.
"""
import torch
import torch.nn as nn

import modern_recording
from modern_recording import dropout_maybe_recorded, linear_cols, with_biases


# ----------------------------------------------------------------------------------
# ch04/05_mla/gpt_with_kv_mla.py: MultiHeadLatentAttention
# ----------------------------------------------------------------------------------
# The MLA code below is inspired by
# https://huggingface.co/bird-of-paradise/deepseek-mla


class MultiHeadLatentAttention(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads,
                 qkv_bias=False, latent_dim=None):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.latent_dim = latent_dim if latent_dim is not None else max(16, d_out // 8)

        # Projections
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)              # per-head Q
        self.W_DKV = nn.Linear(d_in, self.latent_dim, bias=qkv_bias)    # down to latent C
        self.W_UK = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)   # latent -> per-head K
        self.W_UV = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)   # latent -> per-head V

        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)

        ####################################################
        # Latent-KV cache
        self.register_buffer("cache_c_kv", None, persistent=False)
        self.ptr_current_pos = 0
        ####################################################

    def reset_cache(self):
        self.cache_c_kv = None
        self.ptr_current_pos = 0

    @staticmethod
    def _reshape_to_heads(x, num_heads, head_dim):
        # (b, T, d_out) -> (b, num_heads, T, head_dim)
        bsz, num_tokens, _ = x.shape
        return x.view(bsz, num_tokens, num_heads, head_dim).transpose(1, 2).contiguous()

    def forward(self, x, use_cache=False):
        b, num_tokens, _ = x.shape
        num_heads = self.num_heads
        head_dim = self.head_dim

        # 1) Project to queries (per-token, per-head) and new latent chunk
        queries_all = self.W_query(x)  # (b, T, d_out)
        latent_new = self.W_DKV(x)  # (b, T, latent_dim)

        # 2) Update latent cache and choose latent sequence to up-project
        if use_cache:
            if self.cache_c_kv is None:
                latent_total = latent_new
            else:
                latent_total = torch.cat([self.cache_c_kv, latent_new], dim=1)
            self.cache_c_kv = latent_total
        else:
            latent_total = latent_new

        # 3) Up-project latent to per-head keys/values (then split into heads)
        keys_all = self.W_UK(latent_total)   # (b, T_k_total, d_out)
        values_all = self.W_UV(latent_total)   # (b, T_k_total, d_out)

        # 4) Reshape to heads
        queries = self._reshape_to_heads(queries_all, num_heads, head_dim)
        keys = self._reshape_to_heads(keys_all, num_heads, head_dim)
        values = self._reshape_to_heads(values_all, num_heads, head_dim)

        # 5) Scaled dot-product attention with causal mask
        attn_scores = torch.matmul(queries, keys.transpose(-2, -1))
        scores = attn_scores.clone() if modern_recording.RECORD else None  # recorded before the in-place mask

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
        mask_bool = q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)

        # Use the mask to fill attention scores
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        softmax_input = attn_scores / keys.shape[-1]**0.5
        attn_weights = torch.softmax(softmax_input, dim=-1)
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
        self.rec = with_biases({"W_out": self.out_proj.weight.T, "b_out": self.out_proj.bias,
                                "concat": concat[0], "W_DKV": self.W_DKV.weight.T, "b_DKV": self.W_DKV.bias,
                                "latents": latent_new[0]})
        self.head_recs = []
        for h in range(num_heads):
            cols = slice(h * head_dim, (h + 1) * head_dim)
            W_query, b_query = linear_cols(self.W_query, cols)
            W_UK, b_UK = linear_cols(self.W_UK, cols)
            W_UV, b_UV = linear_cols(self.W_UV, cols)
            self.head_recs.append(with_biases(dict(
                W_query=W_query, b_query=b_query, W_UK=W_UK, W_UV=W_UV, b_UK=b_UK, b_UV=b_UV,
                queries=queries[0, h], keys=keys[0, h], values=values[0, h], scores=scores[0, h],
                scaled_scores=scores[0, h] / keys.shape[-1]**0.5, mask=mask_bool.to(torch.float32),
                masked_scores=softmax_input[0, h], weights=weights[0, h], dropout_mask=factor[0, h],
                dropped_weights=attn_weights[0, h], context=heads_context[0, h],
                W_out=self.out_proj.weight.T, b_out=self.out_proj.bias)))
        return context_vec
