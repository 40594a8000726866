// MultiHeadAttentionWithALiBi: the book's MultiHeadAttention (3.6.2) with ch04's KV cache,
// whose scaled scores carry ALiBi's linear biases (Press, Smith and Lewis, 2022) instead
// of a position embedding. There is no such class in the book's repository: this one is
// attnscope's, tests/golden/modern_alibi.py's class as the program writes it.
#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

namespace {

std::string class_alibi(bool bias) {
    std::string c = R"PY(def alibi_slopes(n):
    """ALiBi's slope of each of n heads, as the paper's get_slopes gives them."""
    if n & (n - 1) == 0:  # a power of 2: the geometric series 2^(-8/n), 2^(-16/n), ...
        start = 2 ** (-8 / n)
        return [start * start ** i for i in range(n)]
    closest = 2 ** (n.bit_length() - 1)  # the largest power of 2 below n
    return alibi_slopes(closest) + alibi_slopes(2 * closest)[0::2][:n - closest]


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
        scores = attn_scores  # attnscope: the raw scores (the next lines make new tensors)

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
        attn_scores = attn_scores / keys.shape[-1]**0.5 + alibi
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores, dim=-1)
        weights = attn_weights  # attnscope: before dropout
        attn_weights, dropout_mask = dropout_with_mask(self.dropout, attn_weights)  # attnscope: and its mask

        context_vec = (attn_weights @ values).transpose(1, 2)  # (b, num_tokens, num_heads, head_dim)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        concat = context_vec  # attnscope: the heads side by side, before out_proj
        context_vec = self.out_proj(context_vec)

{TRACE}        return context_vec

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None
        self.ptr_current_pos = 0
)PY";
    std::vector<Row> head = head_rows(split_head_vars(bias, "mask_bool.float()"));
    for (size_t i = 0; i < head.size(); ++i) {
        if (head[i].key == "masked_scores") head[i].expr = "attn_scores[0, h]";  // scaled and biased already
        if (head[i].key == "scaled_scores")
            head.insert(head.begin() + static_cast<std::ptrdiff_t>(++i),
                        Row{"position_bias", "alibi[0, h]", "ALiBi: -slope_h * (i - j), added to the scaled scores"});
    }
    replace(c, "{TRACE}",
            split_trace(head, true, {}, {"Head h owns columns h*head_dim ... (h+1)*head_dim-1 of each projection."},
                        {"cols = slice(h * self.head_dim, (h + 1) * self.head_dim)"}));
    return c;
}

}  // namespace

const EmittedClass kAlibiAttention{
    "MultiHeadAttentionWithALiBi", "alibi",
    [](const AttentionConfig&) -> std::string {
        return "MultiHeadAttentionWithALiBi, multi-head attention with linear biases (ALiBi, Press et al. 2022)";
    },
    [](const AttentionConfig& c) -> std::vector<std::string> { return {dropout_helper(), class_alibi(c.qkv_bias)}; },
    [](const AttentionConfig& c, const std::string& m, const Names&) {
        return "d_in, d_out = batch.shape[2], " + std::to_string(c.d_out) + "\n" +
               construct_ch04(c, m, "MultiHeadAttentionWithALiBi", {}, {});
    },
    true, HeadsAre::Split,
    [](const std::string& m) { return kv_cache_call(m, {"cache_k", "cache_v"}, "cache_k.shape[1]"); }};  // (b, T, heads, hd)

}  // namespace attn::pytorch_emit_parts
