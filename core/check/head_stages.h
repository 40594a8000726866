#pragma once
// The user's own recorded stages as each head attends with them, for the mistake catalogue
// (mistakes.h): the head's columns of the queries, its key/value group's columns of the
// keys and values (gqa: head h reads group h / (heads / groups)), RoPE's turn where the
// record has it, the variant's mask (causal, swa's window) and ALiBi's bias. A mistake is
// then tried on these, so it is found at the stage where it first shows.
#include <optional>
#include <vector>

#include "check/recorded_attention.h"

namespace attn {

// One head's parts (T x head_dim each; bias T x T, zero without ALiBi).
struct HeadParts {
    Matrix q, k, v;  // q and k turned by RoPE where the module has it, as the scores use them
    Matrix k_plain;  // the keys before RoPE (k itself without it)
    Matrix v_turned; // the values turned as keys are (a mistake that swaps them before RoPE)
    Matrix bias;
};

// How a forward split the stages into heads: as the book does, or by view without the
// transpose, or (gqa) sharing the groups with repeat instead of repeat_interleave, so that
// head h reads group h % groups.
struct HeadSplit {
    bool without_transpose = false;
    bool repeated_groups = false;
};

// Each head's parts from the user's queries, keys and values (queries, keys, values: T x
// their width), split as `split` says.
std::vector<HeadParts> head_parts(const RecordedAttention& r, const Matrix& queries, const Matrix& keys,
                                  const Matrix& values, HeadSplit split = {});
// The same from the record's stages; nothing when one of queries, keys, values is missing.
std::optional<std::vector<HeadParts>> recorded_head_parts(const RecordedAttention& r);

// Each of `parts` (one a key/value group) as the heads read them: one a head.
std::vector<Matrix> for_each_head(const RecordedAttention& r, const std::vector<Matrix>& parts,
                                  bool repeated_groups = false);

// 1 where the module hides key j from query i: the future (a causal module), and with a
// sliding window the keys window or more tokens back. All 0 for a module that does not mask.
Matrix hidden_keys(const RecordedAttention& r);
// `scores` with `fill` where `hidden` is 1.
Matrix masked_where(Matrix scores, const Matrix& hidden, float fill);

// ALiBi's bias of head h: -m_h·(i - j) with the module's own slopes where recorded, else
// the paper's (attnscope's). Zero for every other variant.
Matrix position_bias(const RecordedAttention& r, int h);

// The largest |a - b| over every head's cells; infinite for a cell either makes nan, or
// for shapes that differ.
double closest_gap(const std::vector<Matrix>& a, const std::vector<Matrix>& b);

}  // namespace attn
