"""Chapter 4's bonus classes (tests/golden/modern_*.py, the book's) with one mistake each
(`bug`), as readers make them: what `attnscope-cli --check` must find at the right stage
with the right diagnosis (tests/check_attention.test.sh). BUGS maps each to its class's
constructor arguments, the stage it first shows at and words the diagnosis must contain.
Each forward is the class's own without the KV cache, the mistake written in."""
import torch

import modern_recording
from modern_alibi import MultiHeadAttentionWithALiBi
from modern_gqa import GroupedQueryAttention, apply_rope, compute_rope_params
from modern_mla import MultiHeadLatentAttention
from modern_swa import MultiHeadAttentionWithSWA

modern_recording.RECORD = False  # the classes as the book wrote them

BUGS = {
    "gqa_no_scaling": ("weights", "no scaling"),
    "gqa_rope_mask_zero": ("weights", "filled with 0 instead of"),
    "gqa_repeat": ("weights", "repeat instead of repeat_interleave"),
    "swa_no_window": ("weights", "the sliding window not applied"),
    "mla_keys_as_values": ("concat", "keys used as values"),
    "alibi_bias_sign": ("weights", "ALiBi's bias with the wrong sign"),
    "alibi_slopes": ("weights", "ALiBi's slopes are not the paper's"),
}


def _attend(module, queries, keys, values, mask, bias=None, scale=None, mask_fill=-torch.inf):
    """softmax(masked(scores / scale + bias)) @ values, the heads put back and out_proj."""
    b, _, num_tokens, _ = queries.shape
    scores = queries @ keys.transpose(2, 3) / (keys.shape[-1] ** 0.5 if scale is None else scale)
    if bias is not None:
        scores = scores + bias
    weights = module.dropout(torch.softmax(scores.masked_fill(mask, mask_fill), dim=-1))
    context = (weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, module.d_out)
    return module.out_proj(context)


def _heads(x, n, head_dim):
    b, num_tokens, _ = x.shape
    return x.view(b, num_tokens, n, head_dim).transpose(1, 2)


def _future(num_tokens):
    return torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)


class BuggyGroupedQueryAttention(GroupedQueryAttention):
    def __init__(self, *args, bug, **kwargs):
        super().__init__(*args, **kwargs)
        self.bug = bug

    def forward(self, x):
        num_tokens = x.shape[1]
        queries = _heads(self.W_query(x), self.num_heads, self.head_dim)
        keys = _heads(self.W_key(x), self.num_kv_groups, self.head_dim)
        values = _heads(self.W_value(x), self.num_kv_groups, self.head_dim)
        if self.rope_base is not None:
            cos, sin = compute_rope_params(self.head_dim, self.rope_base, max(4096, num_tokens))
            keys, queries = apply_rope(keys, cos, sin), apply_rope(queries, cos, sin)
        if self.bug == "gqa_repeat":  # [K1, K2, K1, K2]: head h reads group h % groups
            keys, values = keys.repeat(1, self.group_size, 1, 1), values.repeat(1, self.group_size, 1, 1)
        else:
            keys = keys.repeat_interleave(self.group_size, dim=1)
            values = values.repeat_interleave(self.group_size, dim=1)
        return _attend(self, queries, keys, values, _future(num_tokens),
                       scale=1.0 if self.bug == "gqa_no_scaling" else None,
                       mask_fill=0.0 if self.bug == "gqa_rope_mask_zero" else -torch.inf)


class BuggyMultiHeadAttentionWithSWA(MultiHeadAttentionWithSWA):
    def __init__(self, *args, bug, **kwargs):
        super().__init__(*args, **kwargs)
        self.bug = bug

    def forward(self, x):
        num_tokens = x.shape[1]
        split = [_heads(layer(x), self.num_heads, self.head_dim) for layer in (self.W_query, self.W_key, self.W_value)]
        # swa_no_window: the causal mask alone, the window forgotten
        return _attend(self, *split, _future(num_tokens))


class BuggyMultiHeadLatentAttention(MultiHeadLatentAttention):
    def __init__(self, *args, bug, **kwargs):
        super().__init__(*args, **kwargs)
        self.bug = bug

    def forward(self, x):
        b, num_tokens, _ = x.shape
        latents = self.W_DKV(x)
        queries = _heads(self.W_query(x), self.num_heads, self.head_dim)
        keys = _heads(self.W_UK(latents), self.num_heads, self.head_dim)
        self.W_UV(latents)  # computed, then not used: mla_keys_as_values
        scores = (queries @ keys.transpose(2, 3)).masked_fill(_future(num_tokens), -torch.inf)
        weights = self.dropout(torch.softmax(scores / self.head_dim ** 0.5, dim=-1))
        context = (weights @ keys).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context)


class BuggyMultiHeadAttentionWithALiBi(MultiHeadAttentionWithALiBi):
    def __init__(self, *args, bug, **kwargs):
        super().__init__(*args, **kwargs)
        self.bug = bug
        if bug == "alibi_slopes":  # 1/2, 1/4, ...: not the paper's 2^(-8/n) series
            n = self.num_heads
            self.slopes = 2.0 ** -torch.arange(1, n + 1, dtype=torch.float32).view(1, n, 1, 1)

    def forward(self, x):
        num_tokens = x.shape[1]
        split = [_heads(layer(x), self.num_heads, self.head_dim) for layer in (self.W_query, self.W_key, self.W_value)]
        positions = torch.arange(num_tokens)
        distance = positions.unsqueeze(-1) - positions.unsqueeze(0)
        bias = (1 if self.bug == "alibi_bias_sign" else -1) * self.slopes * distance
        return _attend(self, *split, _future(num_tokens), bias=bias)


def buggy(bug):
    """The module with `bug`, built after torch.manual_seed(123), in evaluation."""
    torch.manual_seed(123)
    if bug.startswith("gqa"):
        module = BuggyGroupedQueryAttention(3, 8, 0.0, 4, 2, rope_base=10000 if "rope" in bug else None, bug=bug)
    elif bug.startswith("swa"):
        module = BuggyMultiHeadAttentionWithSWA(3, 4, 0.0, 2, sliding_window_size=3, bug=bug)
    elif bug.startswith("mla"):
        module = BuggyMultiHeadLatentAttention(3, 8, 0.0, 2, latent_dim=4, bug=bug)
    else:
        module = BuggyMultiHeadAttentionWithALiBi(3, 8, 0.0, 4, bug=bug)
    return module.eval()
