// Which of the book's classes a run uses: the one its variant's row names
// (VariantInfo::py_class), or seed 004's where that class cannot express the settings.
#include <stdexcept>

#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

namespace {

// Every class a variant's row may name.
const EmittedClass* const kClasses[] = {
    &kSelfAttentionV1, &kSelfAttentionV2,      &kCausalAttention,         &kMhaWrapper,     &kMultiHeadAttention,
    &kCross,           &kGroupedQueryAttention, &kSlidingWindowAttention, &kLatentAttention, &kAlibiAttention,
};

const EmittedClass* emitted_class(const std::string& name) {
    for (const EmittedClass* c : kClasses)
        if (name == c->name) return c;
    throw std::logic_error("no emitted class named " + name + " (pytorch_emit_plan.cpp)");
}

}  // namespace

Plan plan_for(const Settings& s) {
    Plan p;
    p.cfg = attention_config(s);
    const VariantInfo& row = variant_info(p.cfg.variant);
    if (!*row.py_class) {
        p.title = "simplified self-attention without trainable weights (chapter 3.3)";
        return p;
    }
    p.cls = emitted_class(row.py_class);
    if (p.cls->instead)
        if (const EmittedClass* other = p.cls->instead(p.cfg)) p.cls = other;
    p.object = p.cls->object;
    p.title = p.cls->title(p.cfg);
    p.batched = p.cls->batched;
    p.kv_cache = p.cls->kv_cache != nullptr;
    return p;
}

}  // namespace attn::pytorch_emit_parts
