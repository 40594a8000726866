// Which of the book's classes a run uses (see pytorch_emit_parts.h for Module and Plan).
#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

Plan plan_for(const Settings& s) {
    Plan p{Module::Simplified, attention_config(s), "", "", false, false};
    const AttentionConfig& c = p.cfg;
    switch (c.variant) {
    case Variant::Simplified:
        p.title = "simplified self-attention without trainable weights (chapter 3.3)";
        break;
    case Variant::SelfV1:
        if (c.heads == 1 && c.d_out_v == c.d_out) {
            p = {Module::SelfAttentionV1, c, "sa_v1", "SelfAttention_v1 (chapter 3.4.2)", false};
        } else if (c.heads == 1) {
            p = {Module::SelfAttention004, c, "sa", "SelfAttention(d_in, d_out_kq, d_out_v) of seed 004", false};
        } else {
            p = {Module::Wrapper004, c, "mha", "seed 004's MultiHeadAttentionWrapper of SelfAttention heads", false};
        }
        break;
    case Variant::SelfV2:
        p = {Module::SelfAttentionV2, c, "sa_v2", "SelfAttention_v2 (chapter 3.4.2)", false};
        break;
    case Variant::Causal:
        p = {Module::Causal, c, "ca", "CausalAttention (chapter 3.5.3)", true};
        break;
    case Variant::MhaWrapper:
        p = {Module::MhaWrapper, c, "mha", "MultiHeadAttentionWrapper of CausalAttention heads (chapter 3.6.1)", true};
        break;
    case Variant::Mha:
        p = {Module::Mha, c, "mha", "MultiHeadAttention with weight splits (chapter 3.6.2)", true};
        break;
    case Variant::Cross:
        if (c.heads == 1) p = {Module::Cross, c, "crossattn", "CrossAttention of seed 004", false};
        else p = {Module::CrossWrapper, c, "crossattn", "CrossAttention heads of seed 004, side by side", false};
        break;
    // The book's ch04 bonus classes: batched, and their forward fills a KV cache.
    case Variant::Gqa:
        p = {Module::Gqa, c, "gqa",
             c.rope ? "GroupedQueryAttention (ch04/04_gqa) with llama3.py's RoPE" : "GroupedQueryAttention (ch04/04_gqa)",
             true, true};
        break;
    case Variant::Swa:
        p = {Module::Swa, c, "swa", "MultiHeadAttentionWithSWA, sliding-window attention (ch04/06_swa)", true, true};
        break;
    case Variant::Mla:
        p = {Module::Mla, c, "mla", "MultiHeadLatentAttention (ch04/05_mla)", true, true};
        break;
    }
    return p;
}

}  // namespace attn::pytorch_emit_parts
