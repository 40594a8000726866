"""The seed documents' attention classes, each a copy of the book's code, for make_golden.py.

000: SelfAttention_v1, SelfAttention_v2, CausalAttention, MultiHeadAttentionWrapper,
MultiHeadAttention; 004: SelfAttention, its MultiHeadAttentionWrapper, CrossAttention.
The only change to each forward is that it records its intermediate tensors in
`self.rec` (cloning before an in-place op), and, for 004's causal section, the
optional `causal` masking that 004 shows as loose code.  Nothing here copies the C++
engine's logic: the numbers come from PyTorch running the book's code.
"""
import torch
import torch.nn as nn


def causal_mask_for(rows, cols):
    # 000 / 004: mask = torch.triu(torch.ones(block_size, block_size), diagonal=1)
    return torch.triu(torch.ones(rows, cols), diagonal=1)


def record_dropout(dropout, attn_weights):
    """self.dropout(attn_weights), plus the factor it multiplied by.

    nn.Dropout does not expose its mask; Bernoulli draws depend only on the shape, so
    the same generator state applied to ones gives the factor (0 or 1/(1-p)).  The
    generator is left exactly where the real call left it (checked)."""
    before = torch.get_rng_state()
    out = dropout(attn_weights)
    after = torch.get_rng_state()
    torch.set_rng_state(before)
    factor = dropout(torch.ones_like(attn_weights))
    assert torch.equal(torch.get_rng_state(), after), "dropout replay drew differently"
    torch.set_rng_state(after)
    assert torch.equal(out, attn_weights * factor), "dropout factor does not reproduce the output"
    return out, factor


# ----------------------------------------------------------------------------------
# 000, section 3.3: simplified self-attention (no trainable weights)
# ----------------------------------------------------------------------------------
def simplified_attention(inputs):
    attn_scores = inputs @ inputs.T
    attn_weights = torch.softmax(attn_scores, dim=-1)
    all_context_vecs = attn_weights @ inputs
    rec = {"scores": attn_scores, "weights": attn_weights, "context": all_context_vecs}
    return all_context_vecs, rec


# ----------------------------------------------------------------------------------
# 000, 3.4.2: SelfAttention_v1
# ----------------------------------------------------------------------------------
class SelfAttention_v1(nn.Module):

    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))
        self.causal = False  # 004's causal section, applied to this module's scores

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value

        attn_scores = queries @ keys.T # omega
        mask = causal_mask_for(*attn_scores.shape) if self.causal else torch.zeros(attn_scores.shape)
        masked = attn_scores.masked_fill(mask.bool(), -torch.inf) if self.causal else attn_scores
        attn_weights = torch.softmax(
            masked / keys.shape[-1]**0.5, dim=-1
        )

        context_vec = attn_weights @ values
        self.rec = dict(W_query=self.W_query, W_key=self.W_key, W_value=self.W_value,
                        queries=queries, keys=keys, values=values, scores=attn_scores,
                        scaled_scores=attn_scores / keys.shape[-1]**0.5, mask=mask,
                        masked_scores=masked / keys.shape[-1]**0.5, weights=attn_weights,
                        context=context_vec)
        return context_vec


# ----------------------------------------------------------------------------------
# 000, 3.4.2: SelfAttention_v2
# ----------------------------------------------------------------------------------
class SelfAttention_v2(nn.Module):

    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.causal = False  # 004's causal section

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.T
        mask = causal_mask_for(*attn_scores.shape) if self.causal else torch.zeros(attn_scores.shape)
        masked = attn_scores.masked_fill(mask.bool(), -torch.inf) if self.causal else attn_scores
        attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)

        context_vec = attn_weights @ values
        self.rec = linear_weights(self) | dict(
            queries=queries, keys=keys, values=values, scores=attn_scores,
            scaled_scores=attn_scores / keys.shape[-1]**0.5, mask=mask,
            masked_scores=masked / keys.shape[-1]**0.5, weights=attn_weights, context=context_vec)
        return context_vec


def linear_weights(m, cols=None):
    """A module's W_query/W_key/W_value (+ biases) in the `x @ W` orientation."""
    rec = {}
    for name in ("query", "key", "value"):
        lin = getattr(m, "W_" + name)
        w = lin.weight.T
        rec["W_" + name] = w if cols is None else w[:, cols]
        if lin.bias is not None:
            rec["b_" + name] = lin.bias if cols is None else lin.bias[cols]
    return rec


# ----------------------------------------------------------------------------------
# 000, 3.5.3: CausalAttention
# ----------------------------------------------------------------------------------
class CausalAttention(nn.Module):

    def __init__(self, d_in, d_out, context_length,
                 dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout) # New
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1)) # New

    def forward(self, x):
        b, num_tokens, d_in = x.shape # New batch dimension b
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.transpose(1, 2) # Changed transpose
        scores = attn_scores.clone()  # recorded before the in-place mask
        attn_scores.masked_fill_(  # New, _ ops are in-place
            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        softmax_input = attn_scores / keys.shape[-1]**0.5
        attn_weights = torch.softmax(
            softmax_input, dim=-1
        )
        weights = attn_weights
        attn_weights, factor = record_dropout(self.dropout, attn_weights) # New

        context_vec = attn_weights @ values
        self.rec = linear_weights(self) | dict(
            queries=queries[0], keys=keys[0], values=values[0], scores=scores[0],
            scaled_scores=scores[0] / keys.shape[-1]**0.5,
            mask=self.mask[:num_tokens, :num_tokens], masked_scores=softmax_input[0],
            weights=weights[0], dropout_mask=factor[0], dropped_weights=attn_weights[0],
            context=context_vec[0])
        return context_vec


# ----------------------------------------------------------------------------------
# 000, 3.6.1: MultiHeadAttentionWrapper (of CausalAttention)
# ----------------------------------------------------------------------------------
class MultiHeadAttentionWrapper(nn.Module):

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
             for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


# ----------------------------------------------------------------------------------
# 000, 3.6.2: MultiHeadAttention (weight splits)
# ----------------------------------------------------------------------------------
class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert (d_out % num_heads == 0), \
            "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads # Reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer(
            "mask",
            torch.triu(torch.ones(context_length, context_length),
                       diagonal=1)
        )

    def forward(self, x):
        b, num_tokens, d_in = x.shape

        keys = self.W_key(x) # Shape: (b, num_tokens, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)

        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head
        scores = attn_scores.clone()  # recorded before the in-place mask

        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]

        attn_scores.masked_fill_(mask_bool, -torch.inf)

        softmax_input = attn_scores / keys.shape[-1]**0.5
        attn_weights = torch.softmax(softmax_input, dim=-1)
        weights = attn_weights
        attn_weights, factor = record_dropout(self.dropout, attn_weights)

        heads_context = attn_weights @ values
        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = heads_context.transpose(1, 2)

        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        concat = context_vec
        context_vec = self.out_proj(context_vec) # optional projection

        self.rec = {"W_out": self.out_proj.weight.T, "b_out": self.out_proj.bias, "concat": concat[0]}
        self.head_recs = []
        for h in range(self.num_heads):
            cols = slice(h * self.head_dim, (h + 1) * self.head_dim)
            self.head_recs.append(linear_weights(self, cols) | dict(
                queries=queries[0, h], keys=keys[0, h], values=values[0, h], scores=scores[0, h],
                scaled_scores=scores[0, h] / keys.shape[-1]**0.5, mask=self.mask[:num_tokens, :num_tokens],
                masked_scores=softmax_input[0, h], weights=weights[0, h], dropout_mask=factor[0, h],
                dropped_weights=attn_weights[0, h], context=heads_context[0, h],
                W_out=self.out_proj.weight.T, b_out=self.out_proj.bias))
        return context_vec


# ----------------------------------------------------------------------------------
# 004: SelfAttention(d_in, d_out_kq, d_out_v), its MultiHeadAttentionWrapper, CrossAttention
# ----------------------------------------------------------------------------------
class SelfAttention(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v):
        super().__init__()
        self.d_out_kq = d_out_kq
        self.W_query = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out_v))
        self.causal = False  # 004's causal section

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value

        attn_scores = queries @ keys.T  # unnormalized attention weights
        # 004, "Masked multi head attention / Causal self-attention":
        mask = causal_mask_for(*attn_scores.shape) if self.causal else torch.zeros(attn_scores.shape)
        masked = attn_scores.masked_fill(mask.bool(), -torch.inf) if self.causal else attn_scores
        attn_weights = torch.softmax(
            masked / self.d_out_kq**0.5, dim=-1
        )

        context_vec = attn_weights @ values
        self.rec = dict(W_query=self.W_query, W_key=self.W_key, W_value=self.W_value,
                        queries=queries, keys=keys, values=values, scores=attn_scores,
                        scaled_scores=attn_scores / self.d_out_kq**0.5, mask=mask,
                        masked_scores=masked / self.d_out_kq**0.5, weights=attn_weights,
                        context=context_vec)
        return context_vec


class MultiHeadAttentionWrapper004(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v, num_heads):
        super().__init__()
        self.heads = nn.ModuleList(
            [SelfAttention(d_in, d_out_kq, d_out_v)
             for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class CrossAttention(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v):
        super().__init__()
        self.d_out_kq = d_out_kq
        self.W_query = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out_v))
        self.causal = False  # 004's causal section

    def forward(self, x_1, x_2):           # x_2 is new
        queries_1 = x_1 @ self.W_query

        keys_2 = x_2 @ self.W_key          # new
        values_2 = x_2 @ self.W_value      # new

        attn_scores = queries_1 @ keys_2.T # new
        mask = causal_mask_for(*attn_scores.shape) if self.causal else torch.zeros(attn_scores.shape)
        masked = attn_scores.masked_fill(mask.bool(), -torch.inf) if self.causal else attn_scores
        attn_weights = torch.softmax(
            masked / self.d_out_kq**0.5, dim=-1)

        context_vec = attn_weights @ values_2
        self.rec = dict(W_query=self.W_query, W_key=self.W_key, W_value=self.W_value,
                        queries=queries_1, keys=keys_2, values=values_2, scores=attn_scores,
                        scaled_scores=attn_scores / self.d_out_kq**0.5, mask=mask,
                        masked_scores=masked / self.d_out_kq**0.5, weights=attn_weights,
                        context=context_vec)
        return context_vec


class CrossAttentionWrapper(nn.Module):
    """004's MultiHeadAttentionWrapper, with CrossAttention heads (--heads with cross)."""

    def __init__(self, d_in, d_out_kq, d_out_v, num_heads):
        super().__init__()
        self.heads = nn.ModuleList(
            [CrossAttention(d_in, d_out_kq, d_out_v)
             for _ in range(num_heads)]
        )

    def forward(self, x_1, x_2):
        return torch.cat([head(x_1, x_2) for head in self.heads], dim=-1)
