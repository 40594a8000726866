// MultiHeadAttentionWithSWA as the book's ch04/06_swa/gpt_with_kv_swa.py writes it:
// MultiHeadAttention whose mask also hides the keys `sliding_window_size` or more tokens
// back, and whose KV cache keeps only the last window of keys and values.
#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

std::string class_swa(bool bias) {
    std::string c = R"PY(class MultiHeadAttentionWithSWA(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, sliding_window_size=None):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads  # Reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.sliding_window_size = sliding_window_size

        ####################################################
        # KV cache-related code
        self.register_buffer("cache_k", None, persistent=False)
        self.register_buffer("cache_v", None, persistent=False)
        self.ptr_current_pos = 0
        ####################################################

    def forward(self, x, use_cache=False):
        b, num_tokens, d_in = x.shape

        keys_new = self.W_key(x)  # Shape: (b, num_tokens, d_out)
        values_new = self.W_value(x)
        queries = self.W_query(x)

        # We implicitly split the matrix by adding a `num_heads` dimension
        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys_new = keys_new.view(b, num_tokens, self.num_heads, self.head_dim)
        values_new = values_new.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        ####################################################
        # KV cache-related
        if use_cache:
            old_cache_k, old_cache_v = self.cache_k, self.cache_v
            old_len = 0 if old_cache_k is None else old_cache_k.size(1)
            if old_cache_k is None:
                combined_k, combined_v = keys_new, values_new
            else:
                combined_k = torch.cat([old_cache_k, keys_new], dim=1)
                combined_v = torch.cat([old_cache_v, values_new], dim=1)

            keys, values = combined_k, combined_v
            if self.sliding_window_size is not None:
                # During chunked prefill we need up to W-1 older keys plus the whole
                # current chunk (so the earliest queries in the chunk keep their full
                # sliding-window context)
                attn_keep = min(keys.size(1), self.sliding_window_size + num_tokens - 1)
                keys = keys[:, -attn_keep:, :, :]
                values = values[:, -attn_keep:, :, :]

                cache_keep = min(combined_k.size(1), self.sliding_window_size)
                self.cache_k = combined_k[:, -cache_keep:, :, :]
                self.cache_v = combined_v[:, -cache_keep:, :, :]
            else:
                self.cache_k, self.cache_v = combined_k, combined_v

            dropped = combined_k.size(1) - keys.size(1)
            k_start_pos_abs = (self.ptr_current_pos - old_len) + dropped
            q_start_pos_abs = self.ptr_current_pos
        else:
            keys, values = keys_new, values_new
        ####################################################

        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head
        scores = attn_scores.clone()  # attnscope: the raw scores, before the in-place mask

        ####################################################
        # causal + sliding-window mask
        num_tokens_Q = queries.shape[-2]
        num_tokens_K = keys.shape[-2]
        device = queries.device
        # Determine absolute positions for q and k
        if use_cache:
            q_start = q_start_pos_abs
            k_start = k_start_pos_abs
        else:
            q_start = 0
            k_start = 0
        q_positions = torch.arange(q_start, q_start + num_tokens_Q, device=device, dtype=torch.long)
        k_positions = torch.arange(k_start, k_start + num_tokens_K, device=device, dtype=torch.long)
        # Sliding window width
        W = num_tokens_K + 1 if self.sliding_window_size is None else int(self.sliding_window_size)
        diff = q_positions.unsqueeze(-1) - k_positions.unsqueeze(0)
        mask_bool = (diff < 0) | (diff >= W)
        if use_cache:
            self.ptr_current_pos += num_tokens_Q
        else:
            self.ptr_current_pos = 0

        # Use the mask to fill attention scores
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        weights = attn_weights  # attnscope: before dropout
        attn_weights, dropout_mask = dropout_with_mask(self.dropout, attn_weights)  # attnscope: and its mask

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        concat = context_vec  # attnscope: the heads side by side, before out_proj
        context_vec = self.out_proj(context_vec)  # optional projection

{TRACE}        return context_vec

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None
        self.ptr_current_pos = 0
)PY";
    HeadVars h = split_head_vars(bias, "mask_bool.float()");
    h.mask_why = "1 = masked: the future, and keys W or more tokens back";
    replace(c, "{TRACE}",
            split_trace(head_rows(h), true, {}, {"Head h owns columns h*head_dim ... (h+1)*head_dim-1 of each projection."},
                        {"cols = slice(h * self.head_dim, (h + 1) * self.head_dim)"}));
    return c;
}

const EmittedClass kSlidingWindowAttention{
    "MultiHeadAttentionWithSWA", "swa",
    [](const AttentionConfig&) -> std::string {
        return "MultiHeadAttentionWithSWA, sliding-window attention (ch04/06_swa)";
    },
    [](const AttentionConfig& c) -> std::vector<std::string> { return {dropout_helper(), class_swa(c.qkv_bias)}; },
    [](const AttentionConfig& c, const std::string& m, const Names&) {
        return "d_in, d_out = batch.shape[2], " + std::to_string(c.d_out) + "\n" +
               construct_ch04(c, m, "MultiHeadAttentionWithSWA", {}, {"sliding_window_size=" + std::to_string(c.window)});
    },
    true, HeadsAre::Split,
    [](const std::string& m) {  // (b, T, heads, hd), the last window only
        return kv_cache_call(m, {"cache_k", "cache_v"}, "cache_k.shape[1]");
    }};

}  // namespace attn::pytorch_emit_parts
