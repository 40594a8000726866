// The classes whose weights are nn.Linear layers (chapters 3.4.2 to 3.6.2):
// SelfAttention_v2, CausalAttention, MultiHeadAttentionWrapper, MultiHeadAttention, and
// the dropout helper that shows the mask nn.Dropout used (ch04's classes use it too). Each
// forward records its stages.
#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

std::string class_self_attention_v2(bool causal, bool bias) {
    std::string c = R"PY(class SelfAttention_v2(nn.Module):

    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.T
{CAUSAL}        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)

        context_vec = attn_weights @ values
{TRACE}        return context_vec
)PY";
    HeadVars h = linear_head_vars(bias);
    h.scores = causal ? "scores" : "attn_scores";
    h.masked = "attn_scores";
    h.mask = causal ? "mask" : "torch.zeros(attn_scores.shape)";
    h.context = "context_vec";
    replace(c, "{CAUSAL}", causal_lines(causal));
    replace(c, "{TRACE}", self_trace(head_rows(h), ""));
    return c;
}

std::string dropout_helper() {
    return R"PY(def dropout_with_mask(dropout, attn_weights):
    """dropout(attn_weights), and the mask it multiplied by (0 = dropped, 1/(1-p) = kept).

    nn.Dropout does not hand out its mask. Its random draws depend only on the tensor's
    shape, so running it again from the same generator state on a tensor of ones shows
    the mask; the generator is then put back where the real call left it."""
    before = torch.get_rng_state()
    dropped = dropout(attn_weights)
    after = torch.get_rng_state()
    torch.set_rng_state(before)
    mask = dropout(torch.ones_like(attn_weights))
    torch.set_rng_state(after)
    return dropped, mask
)PY";
}

std::string class_causal_attention(bool bias) {
    std::string c = R"PY(class CausalAttention(nn.Module):

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
        scores = attn_scores.clone()  # attnscope: the raw scores, before the in-place mask
        attn_scores.masked_fill_(  # New, _ ops are in-place
            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)  # `:num_tokens` to account for cases where the number of tokens in the batch is smaller than the supported context_size
        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )
        weights = attn_weights  # attnscope: before dropout
        attn_weights, dropout_mask = dropout_with_mask(self.dropout, attn_weights) # New (attnscope: and its mask)

        context_vec = attn_weights @ values
{TRACE}        return context_vec
)PY";
    HeadVars h = linear_head_vars(bias);
    h.scores = "scores";
    h.masked = "attn_scores";
    h.mask = "self.mask[:num_tokens, :num_tokens]";
    h.weights = "weights";
    h.dropout_mask = "dropout_mask";
    h.dropped = "attn_weights";
    h.context = "context_vec[0]";
    h.at = "[0]";
    replace(c, "{TRACE}", self_trace(head_rows(h), " for batch element 0"));
    return c;
}

std::string class_mha_wrapper() {
    return R"PY(class MultiHeadAttentionWrapper(nn.Module):

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
             for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)
)PY";
}

std::string class_mha(bool bias) {
    std::string c = R"PY(class MultiHeadAttention(nn.Module):
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

        # We implicitly split the matrix by adding a `num_heads` dimension
        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head
        scores = attn_scores.clone()  # attnscope: the raw scores, before the in-place mask

        # Original mask truncated to the number of tokens and converted to boolean
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]

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
        context_vec = self.out_proj(context_vec) # optional projection

{TRACE}        return context_vec
)PY";
    const HeadVars h = split_head_vars(bias, "self.mask[:num_tokens, :num_tokens]");
    replace(c, "{TRACE}",
            split_trace(head_rows(h), true, {}, {"Head h owns columns h*head_dim ... (h+1)*head_dim-1 of each projection."},
                        {"cols = slice(h * self.head_dim, (h + 1) * self.head_dim)"}));
    return c;
}

}  // namespace attn::pytorch_emit_parts
