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

// How the program builds them: SelfAttention_v2 on one text, the others on a batch.
namespace {

std::string construct_batched(const AttentionConfig& c, const std::string& m, const char* cls, bool heads) {
    return "d_in, d_out = batch.shape[2], " + std::to_string(c.d_out) + "\n" +
           "context_length = batch.shape[1]  # the number of tokens\n" + m + " = " + cls +
           "(d_in, d_out, context_length, " + py_float(c.dropout) +
           (heads ? ", num_heads=" + std::to_string(c.heads) : "") + (c.qkv_bias ? ", qkv_bias=True" : "") + ")\n";
}

}  // namespace

const EmittedClass kSelfAttentionV2{
    "SelfAttention_v2", "sa_v2", [](const AttentionConfig&) -> std::string { return "SelfAttention_v2 (chapter 3.4.2)"; },
    [](const AttentionConfig& c) -> std::vector<std::string> { return {class_self_attention_v2(c.causal, c.qkv_bias)}; },
    [](const AttentionConfig& c, const std::string& m, const Names& names) {
        return "d_in, d_out = " + names.inputs + ".shape[1], " + std::to_string(c.d_out) + "\n" + m +
               " = SelfAttention_v2(d_in, d_out" + (c.qkv_bias ? ", qkv_bias=True" : "") + ")\n";
    },
    false, HeadsAre::One};

const EmittedClass kCausalAttention{
    "CausalAttention", "ca", [](const AttentionConfig&) -> std::string { return "CausalAttention (chapter 3.5.3)"; },
    [](const AttentionConfig& c) -> std::vector<std::string> {
        return {dropout_helper(), class_causal_attention(c.qkv_bias)};
    },
    [](const AttentionConfig& c, const std::string& m, const Names&) {
        return construct_batched(c, m, "CausalAttention", false);
    },
    true, HeadsAre::One};

const EmittedClass kMhaWrapper{
    "MultiHeadAttentionWrapper", "mha",
    [](const AttentionConfig&) -> std::string {
        return "MultiHeadAttentionWrapper of CausalAttention heads (chapter 3.6.1)";
    },
    [](const AttentionConfig& c) -> std::vector<std::string> {
        return {dropout_helper(), class_causal_attention(c.qkv_bias), class_mha_wrapper()};
    },
    [](const AttentionConfig& c, const std::string& m, const Names&) {
        return construct_batched(c, m, "MultiHeadAttentionWrapper", true);
    },
    true, HeadsAre::Listed};

const EmittedClass kMultiHeadAttention{
    "MultiHeadAttention", "mha",
    [](const AttentionConfig&) -> std::string { return "MultiHeadAttention with weight splits (chapter 3.6.2)"; },
    [](const AttentionConfig& c) -> std::vector<std::string> { return {dropout_helper(), class_mha(c.qkv_bias)}; },
    [](const AttentionConfig& c, const std::string& m, const Names&) {
        return construct_batched(c, m, "MultiHeadAttention", true);
    },
    true, HeadsAre::Split};

}  // namespace attn::pytorch_emit_parts
