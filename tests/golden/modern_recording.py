"""What the modern attention classes (modern_gqa.py, modern_swa.py, modern_mla.py) share
to record their stages for make_modern_golden.py: the switch RECORD and the helpers
their forwards call.

With RECORD true, each forward records its intermediate tensors, as
book_modules.MultiHeadAttention does: `self.rec` (module-level stages) and
`self.head_recs` (one dict per head, batch element 0), cloning before an in-place op,
and the dropout goes through book_modules.record_dropout, which also gives the factor
it multiplied by.

RECORD is read at call time, as modern_recording.RECORD (never imported by value), so
setting it once switches every class: bench/compare_with_pytorch.py sets it to False to
time the classes as the book wrote them, recording nothing.
"""
from book_modules import record_dropout

# False: the classes run as the book wrote them, recording nothing (bench/compare_with_pytorch.py
# times them so); the golden data needs True.
RECORD = True


def dropout_maybe_recorded(dropout, attn_weights):
    """self.dropout(attn_weights), with its factor when RECORD (else None)."""
    return record_dropout(dropout, attn_weights) if RECORD else (dropout(attn_weights), None)


def linear_cols(lin, cols):
    """A Linear's weight in the `x @ W` orientation, columns `cols`, and its bias[cols] (or None)."""
    return lin.weight.T[:, cols], (lin.bias[cols] if lin.bias is not None else None)


def with_biases(rec):
    """A record without its absent biases (the None entries)."""
    return {k: v for k, v in rec.items() if v is not None}
