#pragma once
// One line each on what today's variants change, as a front end shows it beside the
// heads: which heads share a key/value group, and what the KV cache holds per token
// against multi-head attention's.
#include <string>

#include "attention/trace.h"

namespace attn {

// "kv 2" (its key/value group) for a head of a grouped-query run; "" otherwise.
std::string head_group_label(const Trace& t, int head);
// "heads 1–2 share key/value group 1, heads 3–4 group 2"; "" when heads are not grouped.
std::string head_groups_line(const Trace& t);
// "KV cache: 32 bytes per token per layer, 2× less than MHA's 64; it holds only the last 3
// of 6 tokens"; "" when the trace has no cache size.
std::string kv_cache_line(const Trace& t);

}  // namespace attn
