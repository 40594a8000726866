"""The book's MultiHeadAttention (scripts/book_gpt.py) with one mistake each (`bug`), as readers make them: what
`attnscope-cli --check` must find at the right stage with the right diagnosis
(tests/check_attention.test.sh). BUGS maps each to the stage it first shows at and words
the diagnosis must contain; STATED, the settings a bug's test states to the recorder (what
the reader meant: record(..., qkv_bias=False))."""
import torch
import torch.nn as nn

from book_gpt import MultiHeadAttention

BUGS = {
    "no_scaling": ("weights", "no scaling"),
    "scale_d_in": ("weights", "(d_in) instead of the head's"),
    "scale_d_out": ("weights", "(d_out) instead of the head's"),
    "softmax_dim": ("weights", "softmax over the wrong dimension"),
    "mask_after_softmax": ("weights", "mask applied after the softmax without renormalising"),
    "mask_zero": ("weights", "filled with 0 instead of"),
    "mask_past": ("weights", "wrong side of the diagonal"),
    "no_mask": ("weights", "no causal mask"),
    "keys_values_swapped": ("weights", "keys and values swapped"),
    "queries_as_keys": ("weights", "queries used as keys"),
    "view_without_transpose": ("weights", "without the transpose"),
    "dropout_in_eval": ("dropped_weights", "dropout left on in evaluation"),
    "heads_reversed": ("concat", "concatenated in the wrong order"),
    "no_transpose_back": ("concat", "without transpose(1, 2) first"),
    "keys_as_values": ("concat", "keys used as values"),
    "no_out_proj": ("output", "no out_proj"),
    "out_proj_twice": ("output", "out_proj applied twice"),
    "dropout_before_mask": ("weights", "dropout applied to the scores, before the mask and the softmax"),
    "dropout_before_softmax": ("weights", "dropout applied to the scores, before the softmax (it got the scores "
                                          "divided by √2, masked with −∞)"),
    "bias_without_qkv_bias": ("queries", "W_query, W_key and W_value have a bias although qkv_bias=False: "
                                         "nn.Linear's bias defaults to True (pass bias=qkv_bias)"),
}
STATED = {"bias_without_qkv_bias": {"qkv_bias": False}}


def projections_with_bias(module):
    """W_query, W_key and W_value as written without bias=qkv_bias: nn.Linear's default bias."""
    d_in, d_out = module.W_query.in_features, module.d_out
    module.W_query, module.W_key, module.W_value = nn.Linear(d_in, d_out), nn.Linear(d_in, d_out), nn.Linear(d_in, d_out)


class BuggyMultiHeadAttention(MultiHeadAttention):
    def __init__(self, *args, bug, **kwargs):
        super().__init__(*args, **kwargs)
        assert bug in BUGS, bug
        self.bug = bug
        if bug == "bias_without_qkv_bias":
            projections_with_bias(self)

    def forward(self, x):
        bug = self.bug
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        if bug == "view_without_transpose":
            keys = keys.view(b, self.num_heads, num_tokens, self.head_dim)
            values = values.view(b, self.num_heads, num_tokens, self.head_dim)
            queries = queries.view(b, self.num_heads, num_tokens, self.head_dim)
        else:
            keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
            values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
            queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        if bug == "keys_values_swapped":
            keys, values = values, keys
        attn_scores = queries @ (queries if bug == "queries_as_keys" else keys).transpose(2, 3)
        if bug == "dropout_before_mask":
            attn_scores = self.dropout(attn_scores)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        if bug == "mask_past":
            mask_bool = torch.tril(torch.ones(num_tokens, num_tokens), diagonal=-1).bool()
        scale = {"no_scaling": 1.0, "scale_d_in": d_in**0.5, "scale_d_out": self.d_out**0.5}.get(bug, keys.shape[-1]**0.5)
        if bug == "mask_after_softmax":
            attn_weights = torch.softmax(attn_scores / scale, dim=-1).masked_fill(mask_bool, 0.0)
        else:
            if bug != "no_mask":
                attn_scores = attn_scores.masked_fill(mask_bool, 0.0 if bug == "mask_zero" else -torch.inf)
            softmax_input = attn_scores / scale
            if bug == "dropout_before_softmax":
                softmax_input = self.dropout(softmax_input)
            attn_weights = torch.softmax(softmax_input, dim=-2 if bug == "softmax_dim" else -1)
        if bug == "dropout_in_eval":
            self.dropout.train()  # the module is in eval(); its dropout is not
        if bug not in ("dropout_before_mask", "dropout_before_softmax"):
            attn_weights = self.dropout(attn_weights)
        per_head = attn_weights @ (keys if bug == "keys_as_values" else values)  # b, heads, T, head_dim
        if bug == "heads_reversed":
            per_head = per_head.flip(1)
        if bug == "no_transpose_back":
            context_vec = per_head.contiguous().view(b, num_tokens, self.d_out)
        else:
            context_vec = per_head.transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        if bug == "no_out_proj":
            return context_vec
        context_vec = self.out_proj(context_vec)
        if bug == "out_proj_twice":
            context_vec = self.out_proj(context_vec)
        return context_vec
