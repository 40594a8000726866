// GroupedQueryAttention as the book's ch04/04_gqa/gpt_with_kv_gqa.py writes it (dtype left
// out: the program runs in float32), and for --rope the rotary position embeddings of
// pkg/llms_from_scratch/kv_cache/llama3.py (compute_rope_params, apply_rope with its
// offset), applied where llama3.py's GroupedQueryAttention applies them: to the queries
// and the new keys right after the head split, before the cache and repeat_interleave.
// Without --rope, no RoPE code is written at all.
#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

std::string rope_functions() {
    return R"PY(def compute_rope_params(head_dim, theta_base=10_000, context_length=4096, dtype=torch.float32, rec=None):
    assert head_dim % 2 == 0, "Embedding dimension must be even"

    # Compute the inverse frequencies
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2, dtype=dtype)[: (head_dim // 2)].float() / head_dim))

    # (llama3.py adjusts the frequencies here for Llama 3.1's freq_config; attnscope has none)

    # Generate position indices
    positions = torch.arange(context_length, dtype=dtype)

    # Compute the angles
    angles = positions[:, None] * inv_freq[None, :]  # Shape: (context_length, head_dim // 2)
    if rec is not None:  # attnscope: the angles, for the JSON
        rec["angles"] = angles

    # Expand angles to match the head_dim
    angles = torch.cat([angles, angles], dim=1)  # Shape: (context_length, head_dim)

    # Precompute sine and cosine
    cos = torch.cos(angles)
    sin = torch.sin(angles)

    return cos, sin


def apply_rope(x, cos, sin, offset=0):
    # x: (batch_size, num_heads, seq_len, head_dim)
    batch_size, num_heads, seq_len, head_dim = x.shape
    assert head_dim % 2 == 0, "Head dimension must be even"

    # Split x into first half and second half
    x1 = x[..., : head_dim // 2]  # First half
    x2 = x[..., head_dim // 2:]  # Second half

    # Adjust sin and cos shapes
    cos = cos[offset:offset + seq_len, :].unsqueeze(0).unsqueeze(0)  # Shape: (1, 1, seq_len, head_dim)
    sin = sin[offset:offset + seq_len, :].unsqueeze(0).unsqueeze(0)

    # Apply the rotary transformation
    rotated = torch.cat((-x2, x1), dim=-1)
    x_rotated = (x * cos) + (rotated * sin)

    # It's ok to use lower-precision after applying cos and sin rotation
    return x_rotated.to(dtype=x.dtype)
)PY";
}

namespace {

// --rope's additions to the constructor's arguments, its body and the forward.
const char* kRopeArgs = ",\n            rope_base=10_000, context_length=4096  # attnscope --rope: llama3.py's RoPE";
const char* kRopeInit = R"PY(
        # attnscope --rope: the rotary tables, which llama3.py's Llama3Model computes once for its blocks
        self.rope = {}  # attnscope: compute_rope_params leaves its angles here, for the JSON
        cos, sin = compute_rope_params(self.head_dim, theta_base=rope_base, context_length=context_length,
                                       rec=self.rope)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
)PY";
const char* kRopeForward = R"PY(
        # Apply RoPE (attnscope --rope, where llama3.py's GroupedQueryAttention applies it):
        # each new token at its position, ptr_current_pos onwards when it extends the cache
        queries_unrotated, keys_unrotated = queries, keys_new  # attnscope: before the rotation
        start_pos = self.ptr_current_pos if use_cache else 0
        angles = self.rope["angles"][start_pos:start_pos + num_tokens]  # attnscope: the angles they turn by
        queries = apply_rope(queries, self.cos, self.sin, offset=start_pos)
        keys_new = apply_rope(keys_new, self.cos, self.sin, offset=start_pos)
)PY";

}  // namespace

std::string class_gqa(bool bias, bool rope) {
    std::string c = R"PY(class GroupedQueryAttention(nn.Module):
    def __init__(
            self, d_in, d_out, dropout, num_heads, num_kv_groups, qkv_bias=False{ROPE_ARGS}
    ):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        assert num_heads % num_kv_groups == 0, "num_heads must be divisible by num_kv_groups"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads

        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias)
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out, bias=False)
        self.dropout = nn.Dropout(dropout)
{ROPE_INIT}
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
{ROPE_FORWARD}
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
        scores = attn_scores  # attnscope: the raw scores (masked_fill below makes a new tensor)

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

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        assert keys.shape[-1] == self.head_dim
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
    replace(c, "{ROPE_ARGS}", rope ? kRopeArgs : "");
    replace(c, "{ROPE_INIT}", rope ? kRopeInit : "");
    replace(c, "{ROPE_FORWARD}", rope ? kRopeForward : "");

    // Head h's keys and values are its group's (g = h // group_size), before the rotation.
    HeadVars h = split_head_vars(bias, "mask.float()", "gcols");
    h.kv_at = "[0, g]";
    if (rope) {
        h.queries = "queries_unrotated";
        h.keys = "keys_unrotated";
    } else {
        h.keys = "keys_new";
    }
    h.values = "values_new";
    std::vector<Row> rows = {{"kv_group", "g", "the key/value group this head shares"}};
    for (const Row& r : head_rows(h)) {
        rows.push_back(r);
        if (rope && r.key == "values") {
            rows.push_back({"queries_rotated", "queries[0, h]", "apply_rope: turned by position"});
            rows.push_back({"keys_rotated", "keys_new[0, g]", ""});
        }
    }
    std::vector<Row> module;
    if (rope) module.push_back({"rope_angles", "angles", "p * inv_freq[j] at position p"});
    replace(c, "{TRACE}",
            split_trace(rows, false, module,
                        {"Head h owns columns h*head_dim ... (h+1)*head_dim-1 of the queries and",
                         "reads group g = h // group_size: columns g*head_dim ... of the keys and values."},
                        {"g = h // self.group_size",
                         "cols = slice(h * self.head_dim, (h + 1) * self.head_dim)",
                         "gcols = slice(g * self.head_dim, (g + 1) * self.head_dim)"}));
    return c;
}

const EmittedClass kGroupedQueryAttention{
    "GroupedQueryAttention", "gqa",
    [](const AttentionConfig& c) -> std::string {
        return c.rope ? "GroupedQueryAttention (ch04/04_gqa) with llama3.py's RoPE" : "GroupedQueryAttention (ch04/04_gqa)";
    },
    [](const AttentionConfig& c) {
        std::vector<std::string> blocks;
        if (c.rope) blocks.push_back(rope_functions());
        blocks.push_back(dropout_helper());
        blocks.push_back(class_gqa(c.qkv_bias, c.rope));
        return blocks;
    },
    [](const AttentionConfig& c, const std::string& m, const Names&) {
        std::string lines = "d_in, d_out = batch.shape[2], " + std::to_string(c.d_out) + "\n";
        std::vector<std::string> rope;
        if (c.rope) {
            lines += "context_length = batch.shape[1]  # the number of tokens: RoPE's table rows\n";
            rope = {"rope_base=" + std::to_string(c.rope_base), "context_length=context_length"};
        }
        return lines + construct_ch04(c, m, "GroupedQueryAttention", {"num_kv_groups=" + std::to_string(c.kv_groups)}, rope);
    },
    true, HeadsAre::Split,
    [](const std::string& m) { return kv_cache_call(m, {"cache_k", "cache_v"}, "cache_k.shape[2]"); }};  // (b, groups, T, hd)

}  // namespace attn::pytorch_emit_parts
