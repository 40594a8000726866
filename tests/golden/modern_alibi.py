"""MultiHeadAttentionWithALiBi: the book's MultiHeadAttention (3.6.2, with ch04/03_kv-cache's
cache) whose scores carry ALiBi's linear biases, for make_modern_golden.py.

ALiBi (Press, Smith and Lewis, "Train Short, Test Long", ICLR 2022; used by BLOOM and MPT)
adds no position embedding: head h adds -m_h * (i - j) to the scaled score of query i and
key j, so every head prefers recent keys, each with its own slope m_h.  The slopes are the
paper's: for n heads, n a power of 2, m_h = 2^(-8h/n), h = 1..n; otherwise those of the
largest power of 2 below n, then every other slope of twice that many.

This class is written for attnscope from the paper (there is no ALiBi class in the book's
repository); its layers are MultiHeadAttention's, built in the same order, so that after
torch.manual_seed it draws the same weights.  Nothing here copies the C++ engine's logic.
The forward records its stages in `self.rec` and `self.head_recs` (modern_recording.py)
unless modern_recording.RECORD is False.
"""
import math

import torch
import torch.nn as nn

import modern_recording
from modern_recording import dropout_maybe_recorded, linear_cols, with_biases


def alibi_slopes(n):
    """The paper's slopes (its reference code's get_slopes), one per head."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][:n - closest]


class MultiHeadAttentionWithALiBi(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        # One slope per head, shaped to broadcast over (b, num_heads, queries, keys)
        self.register_buffer("slopes", torch.tensor(alibi_slopes(num_heads)).view(1, num_heads, 1, 1),
                             persistent=False)

        self.register_buffer("cache_k", None, persistent=False)
        self.register_buffer("cache_v", None, persistent=False)
        self.ptr_current_pos = 0

    def forward(self, x, use_cache=False):
        b, num_tokens, d_in = x.shape

        keys_new = self.W_key(x)  # Shape: (b, num_tokens, d_out)
        values_new = self.W_value(x)
        queries = self.W_query(x)

        keys_new = keys_new.view(b, num_tokens, self.num_heads, self.head_dim)
        values_new = values_new.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        if use_cache:
            if self.cache_k is None:
                self.cache_k, self.cache_v = keys_new, values_new
            else:
                self.cache_k = torch.cat([self.cache_k, keys_new], dim=1)
                self.cache_v = torch.cat([self.cache_v, values_new], dim=1)
            keys, values = self.cache_k, self.cache_v
        else:
            keys, values = keys_new, values_new

        keys = keys.transpose(1, 2)  # (b, num_heads, num_tokens_K, head_dim)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head
        scores = attn_scores.clone() if modern_recording.RECORD else None

        # Absolute positions: the queries are the last num_tokens_Q of the keys' tokens
        num_tokens_Q, num_tokens_K = queries.shape[-2], keys.shape[-2]
        q_start = self.ptr_current_pos if use_cache else 0
        q_positions = torch.arange(q_start, q_start + num_tokens_Q, dtype=torch.long)
        k_positions = torch.arange(0, num_tokens_K, dtype=torch.long)
        distance = q_positions.unsqueeze(-1) - k_positions.unsqueeze(0)  # i - j
        mask_bool = distance < 0
        self.ptr_current_pos = self.ptr_current_pos + num_tokens_Q if use_cache else 0

        # ALiBi: each head's scaled scores fall linearly with the distance to the key
        alibi = -self.slopes * distance  # (1, num_heads, num_tokens_Q, num_tokens_K)
        scaled = attn_scores / keys.shape[-1]**0.5
        attn_scores = scaled + alibi
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores, dim=-1)
        weights = attn_weights
        attn_weights, factor = dropout_maybe_recorded(self.dropout, attn_weights)

        heads_context = attn_weights @ values  # (b, num_heads, num_tokens, head_dim)
        context_vec = heads_context.transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        concat = context_vec
        context_vec = self.out_proj(context_vec)

        if not modern_recording.RECORD:
            return context_vec
        self.rec = {"W_out": self.out_proj.weight.T, "b_out": self.out_proj.bias, "concat": concat[0]}
        self.head_recs = []
        for h in range(self.num_heads):
            cols = slice(h * self.head_dim, (h + 1) * self.head_dim)
            W_query, b_query = linear_cols(self.W_query, cols)
            W_key, b_key = linear_cols(self.W_key, cols)
            W_value, b_value = linear_cols(self.W_value, cols)
            self.head_recs.append(with_biases(dict(
                W_query=W_query, W_key=W_key, W_value=W_value, b_query=b_query, b_key=b_key, b_value=b_value,
                queries=queries[0, h], keys=keys[0, h], values=values[0, h], scores=scores[0, h],
                scaled_scores=scaled[0, h], position_bias=alibi[0, h], mask=mask_bool.to(torch.float32),
                masked_scores=attn_scores[0, h], weights=weights[0, h], dropout_mask=factor[0, h],
                dropped_weights=attn_weights[0, h], context=heads_context[0, h],
                W_out=self.out_proj.weight.T, b_out=self.out_proj.bias)))
        return context_vec

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None
        self.ptr_current_pos = 0
