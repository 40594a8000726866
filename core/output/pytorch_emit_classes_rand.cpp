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

// How the program builds them: SelfAttention_v1 as the book does, seed 004's classes with
// their (d_in, d_out_kq, d_out_v) signature.
namespace {

std::string construct_004(const AttentionConfig& c, const std::string& m, const Names& names, const char* cls,
                          bool wrapper) {
    return "d_in, d_out_kq, d_out_v = " + names.inputs + ".shape[1], " + std::to_string(c.d_out) + ", " +
           std::to_string(c.d_out_v) + "\n" + m + " = " + cls + "(d_in, d_out_kq, d_out_v" +
           (wrapper ? ", num_heads=" + std::to_string(c.heads) : "") + ")\n";
}

// SelfAttention_v1 has one width for keys and values, and one head.
const EmittedClass* self_v1_instead(const AttentionConfig& c) {
    if (c.heads == 1 && c.d_out_v == c.d_out) return nullptr;
    return c.heads == 1 ? &kSelfAttention004 : &kWrapper004;
}

const EmittedClass* cross_instead(const AttentionConfig& c) { return c.heads == 1 ? nullptr : &kCrossWrapper; }

}  // namespace

const EmittedClass kSelfAttentionV1{
    "SelfAttention_v1", "sa_v1", [](const AttentionConfig&) -> std::string { return "SelfAttention_v1 (chapter 3.4.2)"; },
    [](const AttentionConfig& c) -> std::vector<std::string> { return {class_self_attention_v1(c.causal)}; },
    [](const AttentionConfig& c, const std::string& m, const Names& names) {
        return "d_in, d_out = " + names.inputs + ".shape[1], " + std::to_string(c.d_out) + "\n" + m +
               " = SelfAttention_v1(d_in, d_out)\n";
    },
    false, HeadsAre::One, nullptr, self_v1_instead};

const EmittedClass kSelfAttention004{
    "SelfAttention", "sa",
    [](const AttentionConfig&) -> std::string { return "SelfAttention(d_in, d_out_kq, d_out_v) of seed 004"; },
    [](const AttentionConfig& c) -> std::vector<std::string> { return {class_self_attention_004(c.causal)}; },
    [](const AttentionConfig& c, const std::string& m, const Names& names) {
        return construct_004(c, m, names, "SelfAttention", false);
    },
    false, HeadsAre::One};

const EmittedClass kWrapper004{
    "MultiHeadAttentionWrapper", "mha",
    [](const AttentionConfig&) -> std::string { return "seed 004's MultiHeadAttentionWrapper of SelfAttention heads"; },
    [](const AttentionConfig& c) -> std::vector<std::string> {
        return {class_self_attention_004(c.causal), class_wrapper_004()};
    },
    [](const AttentionConfig& c, const std::string& m, const Names& names) {
        return construct_004(c, m, names, "MultiHeadAttentionWrapper", true);
    },
    false, HeadsAre::Listed};

const EmittedClass kCross{
    "CrossAttention", "crossattn", [](const AttentionConfig&) -> std::string { return "CrossAttention of seed 004"; },
    [](const AttentionConfig& c) -> std::vector<std::string> { return {class_cross_attention(c.causal)}; },
    [](const AttentionConfig& c, const std::string& m, const Names& names) {
        return construct_004(c, m, names, "CrossAttention", false);
    },
    false, HeadsAre::One, nullptr, cross_instead};

const EmittedClass kCrossWrapper{
    "MultiHeadCrossAttentionWrapper", "crossattn",
    [](const AttentionConfig&) -> std::string { return "CrossAttention heads of seed 004, side by side"; },
    [](const AttentionConfig& c) -> std::vector<std::string> {
        return {class_cross_attention(c.causal), class_cross_wrapper()};
    },
    [](const AttentionConfig& c, const std::string& m, const Names& names) {
        return construct_004(c, m, names, "MultiHeadCrossAttentionWrapper", true);
    },
    false, HeadsAre::Listed};

}  // namespace attn::pytorch_emit_parts
