// The classes whose weights are nn.Parameter(torch.rand(...)), as chapter 3.4.1 and seed
// 004 write them: SelfAttention_v1, seed 004's SelfAttention and CrossAttention, and the
// wrappers that put their heads side by side. Each forward ends with the trace block.
#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

namespace {

HeadVars rand_head_vars(bool causal, const std::string& q, const std::string& k, const std::string& v,
                        const std::string& scale) {
    HeadVars h;
    h.w_query = "self.W_query";
    h.w_key = "self.W_key";
    h.w_value = "self.W_value";
    h.queries = q;
    h.keys = k;
    h.values = v;
    h.scores = causal ? "scores" : "attn_scores";
    h.masked = "attn_scores";
    h.scale = scale;
    h.mask = causal ? "mask" : "torch.zeros(attn_scores.shape)";
    h.weights = "attn_weights";
    h.context = "context_vec";
    return h;
}

}  // namespace

std::string class_self_attention_v1(bool causal) {
    std::string c = R"PY(class SelfAttention_v1(nn.Module):

    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value

        attn_scores = queries @ keys.T # omega
{CAUSAL}        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )

        context_vec = attn_weights @ values
{TRACE}        return context_vec
)PY";
    replace(c, "{CAUSAL}", causal_lines(causal));
    replace(c, "{TRACE}", self_trace(head_rows(rand_head_vars(causal, "queries", "keys", "values", "keys.shape[-1]**0.5")), ""));
    return c;
}

std::string class_self_attention_004(bool causal) {
    std::string c = R"PY(class SelfAttention(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v):
        super().__init__()
        self.d_out_kq = d_out_kq
        self.W_query = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out_v))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value

        attn_scores = queries @ keys.T  # unnormalized attention weights
{CAUSAL}        attn_weights = torch.softmax(
            attn_scores / self.d_out_kq**0.5, dim=-1
        )

        context_vec = attn_weights @ values
{TRACE}        return context_vec
)PY";
    replace(c, "{CAUSAL}", causal_lines(causal));
    replace(c, "{TRACE}", self_trace(head_rows(rand_head_vars(causal, "queries", "keys", "values", "self.d_out_kq**0.5")), ""));
    return c;
}

std::string class_wrapper_004() {
    return R"PY(class MultiHeadAttentionWrapper(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v, num_heads):
        super().__init__()
        self.heads = nn.ModuleList(
            [SelfAttention(d_in, d_out_kq, d_out_v)
             for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)
)PY";
}

std::string class_cross_attention(bool causal) {
    std::string c = R"PY(class CrossAttention(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v):
        super().__init__()
        self.d_out_kq = d_out_kq
        self.W_query = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out_v))

    def forward(self, x_1, x_2):           # x_2 is new
        queries_1 = x_1 @ self.W_query

        keys_2 = x_2 @ self.W_key          # new
        values_2 = x_2 @ self.W_value      # new

        attn_scores = queries_1 @ keys_2.T # new
{CAUSAL}        attn_weights = torch.softmax(
            attn_scores / self.d_out_kq**0.5, dim=-1)

        context_vec = attn_weights @ values_2
{TRACE}        return context_vec
)PY";
    replace(c, "{CAUSAL}", causal_lines(causal));
    replace(c, "{TRACE}", self_trace(head_rows(rand_head_vars(causal, "queries_1", "keys_2", "values_2", "self.d_out_kq**0.5")), ""));
    return c;
}

std::string class_cross_wrapper() {
    return R"PY(# attnscope's --heads for cross-attention: seed 004's MultiHeadAttentionWrapper, with
# CrossAttention heads that all read the same second input.
class MultiHeadCrossAttentionWrapper(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v, num_heads):
        super().__init__()
        self.heads = nn.ModuleList(
            [CrossAttention(d_in, d_out_kq, d_out_v)
             for _ in range(num_heads)]
        )

    def forward(self, x_1, x_2):
        return torch.cat([head(x_1, x_2) for head in self.heads], dim=-1)
)PY";
}

}  // namespace attn::pytorch_emit_parts
