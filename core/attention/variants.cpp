#include "attention/variants.h"

namespace attn {

// The two functions of each row (core/attention/variants/NAME.cpp).
void build_no_layers(AttentionModule&, TorchGenerator&);
HeadWork simplified(const AttentionModule&, const Matrix&, const Matrix*, const KeptStages&, Trace&);
void build_self_v1(AttentionModule&, TorchGenerator&);
HeadWork self_v1(const AttentionModule&, const Matrix&, const Matrix*, const KeptStages&, Trace&);
void build_linear_heads(AttentionModule&, TorchGenerator&);
HeadWork linear_heads(const AttentionModule&, const Matrix&, const Matrix*, const KeptStages&, Trace&);
void build_mha(AttentionModule&, TorchGenerator&);
HeadWork mha(const AttentionModule&, const Matrix&, const Matrix*, const KeptStages&, Trace&);
void build_cross(AttentionModule&, TorchGenerator&);
HeadWork cross(const AttentionModule&, const Matrix&, const Matrix*, const KeptStages&, Trace&);
void build_gqa(AttentionModule&, TorchGenerator&);
HeadWork gqa(const AttentionModule&, const Matrix&, const Matrix*, const KeptStages&, Trace&);
void build_mla(AttentionModule&, TorchGenerator&);
HeadWork mla(const AttentionModule&, const Matrix&, const Matrix*, const KeptStages&, Trace&);
HeadWork alibi(const AttentionModule&, const Matrix&, const Matrix*, const KeptStages&, Trace&);

namespace {

using K = KvCache;

// clang-format off
const std::vector<VariantInfo> kVariants = {
    // id, name, section, label, heads are,
    //   heads  proj   d_out_v bias   dropout causal 2nd text | all   kv groups rope   window latent alibi  split |
    //   always causal, KV cache, class caches, emitted class, layers, forward
    {Variant::Simplified, "simplified",  "3.3", "simplified (no weights)",    "",
        false, false, false,  false, false,  false, false,      true, false,    false, false, false, false, false,
        false, K::None,   false, "",                          build_no_layers,    simplified},
    {Variant::SelfV1,     "self-v1",     "3.4", "self-attention v1",          "stacked modules",
        true,  true,  true,   false, false,  true,  false,      true, false,    false, false, false, false, false,
        false, K::None,   false, "SelfAttention_v1",          build_self_v1,      self_v1},
    {Variant::SelfV2,     "self-v2",     "3.4", "self-attention v2",          "",
        false, true,  false,  true,  false,  true,  false,      true, false,    false, false, false, false, false,
        false, K::None,   false, "SelfAttention_v2",          build_linear_heads, linear_heads},
    {Variant::Causal,     "causal",      "3.5", "causal + dropout",           "",
        false, true,  false,  true,  true,   false, false,      true, false,    false, false, false, false, false,
        true,  K::None,   false, "CausalAttention",           build_linear_heads, linear_heads},
    {Variant::MhaWrapper, "mha-wrapper", "3.6", "multi-head wrapper",         "stacked modules",
        true,  true,  false,  true,  true,   false, false,      true, false,    false, false, false, false, false,
        true,  K::None,   false, "MultiHeadAttentionWrapper", build_linear_heads, linear_heads},
    {Variant::Mha,        "mha",         "3.6", "multi-head (weight split)",  "a split of d_out",
        true,  true,  false,  true,  true,   false, false,      true, false,    false, false, false, false, true,
        true,  K::Heads,  false, "MultiHeadAttention",        build_mha,          mha},
    {Variant::Cross,      "cross",       "",    "cross-attention",            "stacked modules",
        true,  true,  true,   false, false,  true,  true,       true, false,    false, false, false, false, false,
        false, K::None,   false, "CrossAttention",            build_cross,        cross},
    {Variant::Gqa,        "gqa",         "ch4+", "grouped-query (GQA, RoPE)", "a split of d_out",
        true,  true,  false,  true,  true,   false, false,      true, true,     true,  false, false, false, true,
        true,  K::Groups, true,  "GroupedQueryAttention",     build_gqa,          gqa},
    {Variant::Swa,        "swa",         "ch4+", "sliding-window (SWA)",      "a split of d_out",
        true,  true,  false,  true,  true,   false, false,      true, false,    false, true,  false, false, true,
        true,  K::Heads,  true,  "MultiHeadAttentionWithSWA", build_mha,          mha},  // the window: its column
    {Variant::Mla,        "mla",         "ch4+", "multi-head latent (MLA)",   "a split of d_out",
        true,  true,  false,  true,  true,   false, false,      true, false,    false, false, true,  false, true,
        true,  K::Latent, true,  "MultiHeadLatentAttention",  build_mla,          mla},
    {Variant::Alibi,      "alibi",       "",    "linear biases (ALiBi)",      "a split of d_out",
        true,  true,  false,  true,  true,   false, false,      true, false,    false, false, false, true,  true,
        true,  K::Heads,  true,  "MultiHeadAttentionWithALiBi", build_mha,        alibi},
};
// clang-format on

}  // namespace

const std::vector<VariantInfo>& variants() { return kVariants; }

const VariantInfo& variant_info(Variant v) { return kVariants.at(static_cast<size_t>(v)); }

std::optional<Variant> variant_from_name(const std::string& name) {
    for (const VariantInfo& v : kVariants)
        if (name == v.name) return v.id;
    return std::nullopt;
}

std::string variant_name(Variant v) { return variant_info(v).name; }

const std::vector<std::string>& variant_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const VariantInfo& v : kVariants) out.emplace_back(v.name);
        return out;
    }();
    return names;
}

bool variant_has_dropout(Variant v) { return variant_info(v).dropout; }

bool splits_heads(Variant v) { return variant_info(v).split; }

bool has_kv_cache(Variant v) { return variant_info(v).kv_cache != KvCache::None; }

std::string variants_with(bool VariantInfo::*column) {
    std::string out;
    for (const VariantInfo& v : kVariants)
        if (v.*column) out += (out.empty() ? "" : ", ") + std::string(v.name);
    return out;
}

}  // namespace attn
