"""Chapter 3's classes of the book whose parameters are not one nn.Linear each
(tests/golden/book_modules.py): the MultiHeadAttentionWrapper (3.6.1) of CausalAttention heads
and SelfAttention_v1 (3.4.1), with one mistake each (`bug`), as readers make them: what
`attnscope-cli --check` must find at the right stage with the right diagnosis
(tests/check_attention.test.sh). BUGS maps each to the stage it first shows at and words the
diagnosis must contain; STATED, the settings a bug's test states to the recorder; buggy(bug,
inputs) builds the module (seeded) and what its forward takes."""
import torch
import torch.nn as nn

from book_modules import CausalAttention, MultiHeadAttentionWrapper, SelfAttention_v1
from buggy_attention import projections_with_bias

BUGS = {
    "wrapper_no_scaling": ("weights", "no scaling"),
    "wrapper_scale_d_in": ("weights", "divided by √3 (d_in) instead of the head's √2"),
    "wrapper_mask_zero": ("weights", "filled with 0 instead of"),
    "wrapper_no_mask": ("weights", "no causal mask"),
    "wrapper_dropout_before_softmax": ("weights", "dropout applied to the scores, before the softmax"),
    "wrapper_dropout_in_eval": ("dropped_weights", "dropout left on in evaluation"),
    "wrapper_keys_as_values": ("output", "keys used as values"),
    "wrapper_heads_reversed": ("output", "outputs concatenated in the wrong order"),
    "wrapper_bias_without_qkv_bias": ("queries", "W_query, W_key and W_value have a bias although qkv_bias=False"),
    "v1_no_scaling": ("weights", "no scaling"),
    "v1_softmax_dim": ("weights", "softmax over the wrong dimension"),
    "v1_keys_as_values": ("output", "keys used as values"),
}
STATED = {"wrapper_bias_without_qkv_bias": {"qkv_bias": False}}


class BuggyCausalAttention(CausalAttention):
    """The book's CausalAttention (3.5.3), its forward as the book writes it with `bug` in it."""

    def __init__(self, *args, bug, **kwargs):
        super().__init__(*args, **kwargs)
        self.bug = bug
        if bug == "wrapper_bias_without_qkv_bias":
            projections_with_bias(self)

    def forward(self, x):
        bug = self.bug
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        if bug != "wrapper_no_mask":
            attn_scores = attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens],
                                                  0.0 if bug == "wrapper_mask_zero" else -torch.inf)
        scale = {"wrapper_no_scaling": 1.0, "wrapper_scale_d_in": d_in**0.5}.get(bug, keys.shape[-1]**0.5)
        softmax_input = attn_scores / scale
        if bug == "wrapper_dropout_before_softmax":
            softmax_input = self.dropout(softmax_input)
        attn_weights = torch.softmax(softmax_input, dim=-1)
        if bug == "wrapper_dropout_in_eval":
            self.dropout.train()  # the module is in eval(); its dropout is not
        if bug != "wrapper_dropout_before_softmax":
            attn_weights = self.dropout(attn_weights)
        return attn_weights @ (keys if bug == "wrapper_keys_as_values" else values)


class BuggyWrapper(MultiHeadAttentionWrapper):
    """The book's MultiHeadAttentionWrapper of BuggyCausalAttention heads."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, bug):
        nn.Module.__init__(self)
        self.bug = bug
        self.heads = nn.ModuleList(
            [BuggyCausalAttention(d_in, d_out, context_length, dropout, bug=bug) for _ in range(num_heads)])

    def forward(self, x):
        heads = self.heads[::-1] if self.bug == "wrapper_heads_reversed" else self.heads
        return torch.cat([head(x) for head in heads], dim=-1)


class BuggySelfAttention_v1(SelfAttention_v1):
    """The book's SelfAttention_v1 (3.4.1), its forward as the book writes it with `bug` in it."""

    def __init__(self, *args, bug):
        super().__init__(*args)
        self.bug = bug

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T
        scale = 1.0 if self.bug == "v1_no_scaling" else keys.shape[-1]**0.5
        attn_weights = torch.softmax(attn_scores / scale, dim=0 if self.bug == "v1_softmax_dim" else -1)
        return attn_weights @ (keys if self.bug == "v1_keys_as_values" else values)


def buggy(bug, inputs):
    """The module with `bug` (the eval() wrapper of 2 heads of d_out 2, dropout 0.5 for the
    bugs that need one to show; SelfAttention_v1(3, 2)) and what its forward takes: the batch
    of one for the wrapper, `inputs` itself for SelfAttention_v1, as 3.4.1 calls it."""
    assert bug in BUGS, bug
    torch.manual_seed(123)
    if bug.startswith("v1_"):
        return BuggySelfAttention_v1(inputs.shape[-1], 2, bug=bug), inputs
    dropout = 0.5 if "dropout" in bug else 0.0
    return BuggyWrapper(inputs.shape[-1], 2, inputs.shape[0], dropout, 2, bug).eval(), inputs.unsqueeze(0)
