// The JSON's "kv_cache" for the book's ch04 classes, measured rather than computed: the
// program runs the module with use_cache=True (on an empty cache that gives the numbers
// of use_cache=False), then weighs the tensors the class itself keeps in its cache. So a
// student sees where the numbers come from, and the CLI's formula (core/attention/variants/
// weight_split.cpp's kv_cache_size) is checked against the book's own cache.
#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

std::string kv_cache_helper() {
    return R"PY(def kv_cache(module, caches, tokens):
    """What the module's KV cache holds after the text, as forward(..., use_cache=True) left
    it: bytes per token of one sequence (batch element 0's share of each cached tensor), how
    many tokens it keeps, and what MultiHeadAttention would cache per token for the same
    d_out (a key and a value of d_out each)."""
    per_sequence = sum(c[0].numel() * c.element_size() for c in caches)
    return {"bytes_per_token": per_sequence // tokens, "tokens": tokens,
            "mha_bytes_per_token": 2 * module.d_out * caches[0].element_size()}
)PY";
}

std::string kv_cache_call(const std::string& object, const std::vector<std::string>& caches, const std::string& tokens) {
    std::string list;
    for (const std::string& c : caches) list += (list.empty() ? "" : ", ") + object + "." + c;
    return "kv_cache(" + object + ", [" + list + "], " + object + "." + tokens + ")";
}

}  // namespace attn::pytorch_emit_parts
