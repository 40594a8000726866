// MultiHeadLatentAttention as the book's ch04/05_mla/gpt_with_kv_mla.py writes it: the
// inputs go down to one latent vector per token (W_DKV), the only thing its cache keeps,
// and every head's keys and values come up from that latent (W_UK, W_UV).
#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

std::string class_mla(bool bias) {
    std::string c = R"PY(# The MLA code below is inspired by
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
        scores = attn_scores.clone()  # attnscope: the raw scores, before the in-place mask

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
)PY";
    // Head h's keys and values come up from the latent through its columns of W_UK and W_UV.
    const HeadVars h = split_head_vars(bias, "mask_bool.float()", "cols", "UK", "UV");
    std::vector<Row> module = {{"W_DKV", "self.W_DKV.weight.T", "down to the latent: x @ W_DKV"}};
    if (bias) module.push_back({"b_DKV", "self.W_DKV.bias", ""});
    module.push_back({"latents", "latent_new[0]", "one latent row per token: what the cache keeps"});
    replace(c, "{TRACE}",
            split_trace(head_rows(h), true, module,
                        {"Head h owns columns h*head_dim ... (h+1)*head_dim-1 of W_query, W_UK and W_UV."},
                        {"cols = slice(h * self.head_dim, (h + 1) * self.head_dim)"}));
    return c;
}

const EmittedClass kLatentAttention{
    "MultiHeadLatentAttention", "mla",
    [](const AttentionConfig&) -> std::string { return "MultiHeadLatentAttention (ch04/05_mla)"; },
    [](const AttentionConfig& c) -> std::vector<std::string> { return {dropout_helper(), class_mla(c.qkv_bias)}; },
    [](const AttentionConfig& c, const std::string& m, const Names&) {
        std::vector<std::string> latent;
        if (c.latent_dim) latent.push_back("latent_dim=" + std::to_string(*c.latent_dim));
        return "d_in, d_out = batch.shape[2], " + std::to_string(c.d_out) + "\n" +
               construct_ch04(c, m, "MultiHeadLatentAttention", {}, latent);
    },
    true, HeadsAre::Split,
    [](const std::string& m) { return kv_cache_call(m, {"cache_c_kv"}, "cache_c_kv.shape[1]"); }};  // (b, T, latent)

}  // namespace attn::pytorch_emit_parts
